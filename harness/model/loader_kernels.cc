// The experiment loader: kernels (name, source, config fragments, options, patches, cmdline).
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "model/file_keys.h"
#include "model/loader_internal.h"
#include "util/text.h"

namespace foliolab::loader_internal {

Result<void> Parser::parse_kernels(const Field& f, Experiment* exp) const {
  auto items = read_list(f, "must list at least one kernel");
  FL_TRY(items);
  std::vector<SourceLoc> name_locs;
  for (const Field& item : *items) {
    KernelSpec kernel;
    SourceLoc name_loc;
    FL_TRY(parse_kernel(item, &kernel, &name_loc));
    for (size_t i = 0; i < exp->kernels.size(); ++i) {
      if (exp->kernels[i].name == kernel.name) {
        return error(name_loc, item.path + ".name",
                     "duplicate kernel name '" + kernel.name + "'" + first_at(name_locs[i]));
      }
    }
    exp->kernels.push_back(std::move(kernel));
    name_locs.push_back(name_loc);
  }
  return {};
}

// `source: PATH|debian` or `source: {git: PATH, ref: REV}`.
Result<void> Parser::parse_source(const Field& s, KernelSpec* k) const {
  k->source_loc = loc(s);
  if (!s.value.IsMap()) {
    auto source = read_nonempty(s);
    FL_TRY(source);
    k->source = *source;
    return {};
  }
  auto fields = read_map(s, &file_keys::kernel_git_source().names());
  FL_TRY(fields);
  FL_TRY(require(*fields, s, file_keys::kernel_git_source().required()));
  auto repo = read_nonempty(*fields->find("git"));
  FL_TRY(repo);
  k->source = *repo;
  k->source_git = true;
  if (const Field* r = fields->find("ref")) {
    auto ref = read_nonempty(*r);
    FL_TRY(ref);
    if (ref->starts_with("-") || ref->find("..") != std::string::npos) {
      return error(
          *r, "invalid git ref '" + *ref + "': expected one revision (a branch, tag or commit)");
    }
    k->source_ref = *ref;
  }
  return {};
}

// `patches: {git: BASE..TIP, repo: PATH}`: the commits after BASE up to TIP.
Result<void> Parser::parse_range(const Field& p, KernelSpec* k) const {
  k->patches_loc = loc(p);
  auto fields = read_map(p, &file_keys::kernel_git_range().names());
  FL_TRY(fields);
  FL_TRY(require(*fields, p, file_keys::kernel_git_range().required()));
  const Field& g = *fields->find("git");
  auto range = read_nonempty(g);
  FL_TRY(range);
  const size_t dots = range->find("..");
  if (dots == std::string::npos || dots == 0 || dots + 2 >= range->size() ||
      range->find("..", dots + 2) != std::string::npos || range->starts_with("-") ||
      (*range)[dots + 2] == '.') {
    return error(
        g, "invalid commit range '" + *range + "': expected BASE..TIP (e.g. v6.12..my-branch)");
  }
  k->patches_range = *range;
  if (const Field* r = fields->find("repo")) {
    auto repo = read_nonempty(*r);
    FL_TRY(repo);
    k->patches_repo = *repo;
  }
  return {};
}

Result<void> Parser::parse_kernel(const Field& f, KernelSpec* k, SourceLoc* name_loc) const {
  const ValueType& table = file_keys::kernel();
  auto fields = read_map(f, &table.names());
  FL_TRY(fields);
  k->loc = loc(f.value);
  if (const Field* n = fields->find("name")) {
    auto name = read_scalar(*n);
    FL_TRY(name);
    if (!is_word(*name, "._+-")) {
      return error(
          *n, "invalid kernel name '" + *name + "': use letters, digits, '.', '_', '+' and '-'");
    }
    if (*name == "." || *name == "..") {
      return error(*n, "invalid kernel name '" + *name + "': '.' and '..' name no kernel");
    }
    if (name->size() > kMaxRunPartLength) {
      return error(*n, fmt::format("a kernel name of at most {} characters (it is part of every "
                                   "run id); this one has {}",
                                   kMaxRunPartLength, name->size()));
    }
    k->name = *name;
    *name_loc = loc(*n);
  }
  if (const Field* s = fields->find("source")) FL_TRY(parse_source(*s, k));
  if (const Field* c = fields->find("config")) FL_TRY(parse_fragments(*c, k));
  if (const Field* o = fields->find("options")) FL_TRY(parse_options(*o, &k->options));
  if (const Field* p = fields->find("patches"); p && p->value.IsMap()) {
    FL_TRY(parse_range(*p, k));
  } else if (p) {
    auto series = read_scalar(*p);
    FL_TRY(series);
    if (!series->empty() && !is_relative_path(*series)) {
      return error(*p, "invalid patch series '" + *series +
                           "': expected a folder or an mbox file under patches/");
    }
    k->patches = *series;
    k->patches_loc = loc(*p);
  }
  if (const Field* c = fields->find("cmdline")) {
    auto cmdline = read_scalar(*c);
    FL_TRY(cmdline);
    k->cmdline = *cmdline;
  }
  if (const Field* a = fields->find("archs")) {
    FL_TRY(parse_arch_list(*a, "must list at least one arch (or leave 'archs' out: all archs)",
                           &k->archs, &k->arch_locs));
  }
  if (const Field* g = fields->find("guest")) {
    auto name = read_choice(*g, table.values_of("guest"), "guest kernel");
    FL_TRY(name);
    k->guest = *name == "full" ? GuestKernel::kFull : GuestKernel::kSmall;
    k->guest_loc = loc(*g);
  }
  return require(*fields, f, table.required());
}

Result<void> Parser::parse_fragments(const Field& f, KernelSpec* k) const {
  auto items = read_list(f, nullptr);
  FL_TRY(items);
  for (const Field& item : *items) {
    auto name = read_scalar(item);
    FL_TRY(name);
    if (name->ends_with(".config")) {
      return error(item, "write the fragment name without '.config': '" +
                             name->substr(0, name->size() - 7) + "'");
    }
    if (!is_word(*name, "._-") || *name == "." || *name == ".." || name->size() > kMaxNameLength) {
      return error(item, "invalid config fragment name '" + *name +
                             "': expected a name under kernel-config/ (letters, digits, "
                             "'.', '_', '-')");
    }
    const auto dup = std::find(k->config.begin(), k->config.end(), *name);
    if (dup != k->config.end()) {
      const size_t first = static_cast<size_t>(dup - k->config.begin());
      return error(item, "fragment '" + *name + "' listed twice" + first_at(k->config_locs[first]));
    }
    k->config.push_back(*name);
    k->config_locs.push_back(loc(item));
  }
  return {};
}

Result<void> Parser::parse_options(const Field& f, KeyValues* out) const {
  auto fields = read_map(f, nullptr);
  FL_TRY(fields);
  for (const auto& [name, field] : fields->entries) {
    if (!name.starts_with("CONFIG_") || !is_word(name.substr(7), "_") ||
        std::any_of(name.begin(), name.end(), [](char c) { return c >= 'a' && c <= 'z'; })) {
      return key_error(field, "invalid option name '" + name + "': expected CONFIG_[A-Z0-9_]+");
    }
    auto value = read_nonempty(field);
    FL_TRY(value);
    out->emplace_back(name, *value);
  }
  return {};
}

}  // namespace foliolab::loader_internal
