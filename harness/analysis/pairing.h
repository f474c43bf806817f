// `compare BASE CAND`: pairs the runs of two sides by identity minus what differs between the
// sides (the session only, or also the kernel, the knob set, ...) and compares each pair.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "analysis/comparison.h"
#include "results/run_query.h"
#include "results/run_record.h"
#include "util/result.h"

namespace foliolab {

struct Side {
  std::string label;    // shown as the variant name when nothing but the session differs
  std::string session;  // prefix for run names ("quickstart/20261130T051430Z"), may be ""
  std::vector<RunRecord> records;
};

// A field (experiment, kernel, arch, knobs, workload) that has one value on each side and
// different values is "what differs": it leaves the pairing key and names the variants. Runs
// with equal keys pair (several runs on one side pool their repetitions). Failed and unpaired
// runs become notes.
// Warnings when the ok runs of BASE and CAND ran on different hosts or accelerators (their
// timings are then not comparable), or one side's runs span several hosts.
std::vector<std::string> provenance_warnings(const Side& base, const Side& cand);

// The records of a session directory that `where` keeps, labelled "<experiment>/<stamp>".
Result<Side> session_side(const std::filesystem::path& dir, const RunQuery& where);

ComparisonModel compare_sides(const Side& base, const Side& cand, const CompareOptions& options);

}  // namespace foliolab
