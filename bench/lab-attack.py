#!/usr/bin/env python3
"""What `foliolab serve` withstands, measured on loopback (docs/lab.md, "What the server
withstands"): the latency of an ordinary GET / while N connections sit idle or half-sent, and
the server's resident memory while 8 clients without a token each try to POST 250 MB.
Starts ./build/foliolab serve on a fresh SQLite index; prints numbers, claims nothing.
Usage: bench/lab-attack.py [N idle connections ...]   (default: 8 50 500 2000)
$FOLIOLAB names another binary (another revision's, for a before/after)."""
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def start(tmp):
    db = os.path.join(tmp, "lab.sqlite")
    proc = subprocess.Popen(
        [os.environ.get("FOLIOLAB", "./build/foliolab"), "serve", "--db", db, "--listen", "127.0.0.1:0",
         "--store", os.path.join(tmp, "store")],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = proc.stdout.readline()  # "foliolab serve: listening on http://127.0.0.1:PORT (...)"
    port = int(line.split("127.0.0.1:")[1].split()[0])
    return proc, port


def get_ms(port):
    t = time.monotonic()
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as r:
            r.read()
    except OSError:
        return float("inf")  # no answer within 10 s
    return (time.monotonic() - t) * 1000


def idle_latency(port, n):
    held = []
    for i in range(n):
        s = socket.create_connection(("127.0.0.1", port))
        if i % 2 == 0:
            s.sendall(b"GET / HT")  # a request line never finished
        held.append(s)
    times = [get_ms(port) for _ in range(20 if n < 8 or get_ms(port) < 10000 else 0)] or [
        float("inf")]
    for s in held:
        s.close()
    return statistics.median(times), max(times)


def anonymous_posts(port, pid, clients=8, size=250 << 20):
    peak = [rss_kb(pid)]
    sent = [0] * clients

    def push(i):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(f"POST /api/v1/sessions HTTP/1.1\r\nHost: x\r\n"
                  f"Content-Length: {size}\r\n\r\n".encode())
        chunk = b"x" * (1 << 20)
        try:
            while sent[i] < size:
                s.sendall(chunk)
                sent[i] += len(chunk)
        except OSError:
            pass
        s.close()

    threads = [threading.Thread(target=push, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    while any(t.is_alive() for t in threads):
        peak.append(rss_kb(pid))
        time.sleep(0.05)
    return peak[0], max(peak), sum(sent)


def main():
    counts = [int(a) for a in sys.argv[1:]] or [8, 50, 500, 2000]
    with tempfile.TemporaryDirectory() as tmp:
        proc, port = start(tmp)
        try:
            print(f"GET / alone: {statistics.median(get_ms(port) for _ in range(20)):.1f} ms median")
            for n in counts:
                med, worst = idle_latency(port, n)
                print(f"GET / with {n} idle/half-sent connections: "
                      f"{med:.1f} ms median, {worst:.1f} ms worst of 20")
            before, peak, sent = anonymous_posts(port, proc.pid)
            print(f"8 anonymous 250 MB POSTs: server RSS {before / 1024:.0f} MB before, "
                  f"{peak / 1024:.0f} MB at most; {sent / (1 << 20):.0f} MB sent in all")
        finally:
            proc.terminate()
            proc.wait()


if __name__ == "__main__":
    main()
