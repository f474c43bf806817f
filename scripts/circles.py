"""Circles in a directed graph, for the house checks (scripts/check-includes.py between files,
scripts/check-house.py between modules): the strongly connected components (Tarjan's, iterative,
so a long chain does not reach Python's recursion limit) and a shortest circle through each."""


def components(graph):
    """The circles' members: each strongly connected component of more than one node, or of one
    node with an edge to itself, as a sorted list. `graph` maps every node to its successors, in
    the order they are searched."""
    index, low, on, stack, found = {}, {}, set(), [], []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on.add(node)
        return (node, iter(graph[node]))

    for start in sorted(graph):
        if start in index:
            continue
        work = [visit(start)]
        while work:
            node, successors = work[-1]
            child = next(successors, None)
            if child is not None:
                if child not in index:
                    work.append(visit(child))
                elif child in on:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while not comp or comp[-1] != node:
                    comp.append(stack.pop())
                    on.discard(comp[-1])
                if len(comp) > 1 or node in graph[node]:
                    found.append(sorted(comp))
    return found


def shortest_circle(graph, members):
    """A shortest circle from the first of `members` through them back to it, breadth-first in
    the successors' order: its edges [(from, to)]."""
    start, inside = members[0], set(members)
    prev, queue = {start: None}, [start]
    while queue:
        following = []
        for u in queue:
            for w in graph[u]:
                if w == start:
                    path, node = [(u, start)], u
                    while prev[node] is not None:
                        path.append((prev[node], node))
                        node = prev[node]
                    return list(reversed(path))
                if w in inside and w not in prev:
                    prev[w] = u
                    following.append(w)
        queue = following
    return []
