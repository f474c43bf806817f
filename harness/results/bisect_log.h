// The bisection's log, <results root>/<experiment>/bisect-<stamp>/bisect.json: the one reader
// and writer of the file, for `foliolab bisect` (bisect/bisect_driver.h), which writes it as it
// goes and replays it on `bisect resume`, and for the index (results/bisect_index.h), which
// reads it at each step and at `index rebuild`. Beside the other stored files' codecs in
// results/: the index rebuild reads every stored file, and results/ sits below bisect/.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "util/result.h"

namespace foliolab {

inline constexpr const char* kBisectLogFile = "bisect.json";
inline constexpr int kBisectLogSchema = 1;

// One observation of the bisection's evidence table.
struct BisectStep {
  size_t candidate = 0;
  std::optional<std::string> cls;  // nullopt: skipped
  std::string session;             // the results session that measured it ("" if none)
  std::string evidence;            // "n=3: 1024 1024 1024", or why it was skipped
  std::vector<double> values;      // the metric's values (one per rep)
};

struct BisectConfirmation {
  size_t parent = 0, culprit = 0;
  bool confirmed = false;
  std::string evidence;  // what the fresh runs showed
  std::vector<std::string> sessions;
};

// The bisection's log (bisect.json, schema kBisectLogSchema), written atomically again as each
// observation comes in, so a kill leaves the last complete state.
class BisectLog {
 public:
  static Result<BisectLog> open(std::filesystem::path file);
  // What the bisection is (the command's own keys: experiment, variants, metric, where), so that
  // `bisect resume DIR` needs nothing else; written once, when it starts.
  const std::map<std::string, std::string>& meta() const { return meta_; }
  Result<void> set_meta(std::map<std::string, std::string> meta);
  const std::vector<BisectStep>& steps() const { return steps_; }
  const std::vector<BisectConfirmation>& confirmations() const { return confirmations_; }
  Result<void> append(const BisectStep& step);
  Result<void> append(const BisectConfirmation& c);

 private:
  Result<void> save() const;
  std::filesystem::path file_;
  std::map<std::string, std::string> meta_;
  std::vector<BisectStep> steps_;
  std::vector<BisectConfirmation> confirmations_;
};

}  // namespace foliolab
