// Local git repositories as kernel sources (no network): resolving refs, the files that differ
// between two commits, and commit ranges as patch series. git runs through argv (`git -C REPO
// ...`): the operations needed are few and coarse (rev-parse, diff --name-only, archive,
// format-patch), so libgit2 would add a dependency without making anything faster.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "kernel/series.h"
#include "util/process.h"
#include "util/result.h"

namespace foliolab {

class GitRepo {
 public:
  GitRepo(ProcessRunner& runner, std::filesystem::path repo)
      : runner_(runner), repo_(std::move(repo)) {}
  const std::filesystem::path& path() const { return repo_; }

  // Full commit id of `ref`; "git repository R: unknown ref 'X'" when it names no commit.
  Result<std::string> commit_of(const std::string& ref) const;
  // Git's tree id of a commit (equal content, equal id).
  Result<std::string> tree_of(const std::string& commit) const;
  // Whether tracked files differ from HEAD (staged or not).
  Result<bool> dirty() const;
  // Paths (relative to the top) whose content or mode differs between two commits.
  Result<std::vector<std::string>> changed_paths(const std::string& from,
                                                 const std::string& to) const;
  // Every file path that `commit` holds.
  Result<std::vector<std::string>> files_of(const std::string& commit) const;
  // Writes `paths` of `commit` (all files when empty) into `dest` with a fresh mtime.
  Result<void> extract(const std::string& commit, const std::vector<std::string>& paths,
                       const std::filesystem::path& dest,
                       const std::filesystem::path& scratch) const;
  // The commits of BASE..TIP (oldest first, merges skipped as by format-patch) as a series
  // written to `dir`. Errors name the range: an unknown end, TIP not descending from BASE, an
  // empty range.
  Result<Series> commit_range(const std::string& range, const std::filesystem::path& dir) const;
  // BASE and the commits of BASE..TIP along the first parent, oldest first (merges included, as
  // `git bisect --first-parent` walks them): the candidates of `bisect --range`.
  Result<std::vector<std::string>> commits(const std::string& range) const;

 private:
  // Both ends' commit ids, TIP descending from BASE; errors name the range.
  Result<std::pair<std::string, std::string>> range_ends(const std::string& range) const;
  Result<std::string> git(std::vector<std::string> args, const std::string& what) const;
  ProcessRunner& runner_;
  std::filesystem::path repo_;
};

}  // namespace foliolab
