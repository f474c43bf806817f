#include "results/record_codec.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "testing/record_fixture.h"

namespace foliolab {
namespace {

using json = nlohmann::json;

RunRecord sample() {
  FakeRun f;
  f.metrics = {{"faults", {16386, 16386, 16387}}, {"sys_s", {0.25, 0.5, 0.125}}};
  f.deltas = {{"mthp.64kB.anon_fault_alloc", {0, 0, 0}}, {"vmstat.pgfault", {16400, 16401, 16399}}};
  RunRecord r = fake_record(f);
  r.provenance.has_guest = true;
  r.provenance.guest.release = "6.12.117";
  r.provenance.guest.page_size = 4096;
  r.knob_results = {{"hugepages-64kB/enabled", "never", "never", "ok", ""}};
  r.guest_errors = {"knobs: x"};
  r.artifacts = {"console.log", "records.bin", "qemu.log", "job.txt"};
  r.id.machine.numa = {{{0}, 512}, {{1}, 512}};
  r.id.machine.numa_distance = {{10, 20}, {20, 10}};
  return r;
}

TEST(RecordCodec, Schema2RoundTrip) {
  const RunRecord r = sample();
  const json j = encode_record(r);
  EXPECT_EQ(j.at("schema"), kRunRecordSchema);
  auto back = parse_record(j.dump(2));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->schema, 2);
  EXPECT_EQ(encode_record(*back), j);  // nothing lost
  EXPECT_EQ(back->samples("faults"), (std::vector<double>{16386, 16386, 16387}));
  EXPECT_EQ(back->samples("vmstat.pgfault"), (std::vector<double>{16400, 16401, 16399}));
  EXPECT_EQ(back->id.machine.numa[1].cpus, std::vector<int>{1});
}

// Warm-up reps are kept and marked, out of every statistic; why the reps stopped round-trips;
// a record without either (written before issue 18) loads as before.
TEST(RecordCodec, WarmupRepsAndTheRepeatStopRoundTrip) {
  RunRecord r = sample();
  r.reps[0].warmup = true;
  r.repeat_stop = RepeatStop{.reason = RepeatStopReason::kReached,
                             .n = 2,
                             .warmup = 1,
                             .target = 0.02,
                             .half_width = {{"sys_s", 0.0183}, {"wall_s", std::nullopt}}};
  const json j = encode_record(r);
  EXPECT_EQ(j.at("reps")[0].at("warmup"), true);
  EXPECT_FALSE(j.at("reps")[1].contains("warmup"));
  EXPECT_EQ(j.at("repeat_stop").at("reason"), "reached");
  EXPECT_TRUE(j.at("repeat_stop").at("half_width")[1].at("half_width").is_null());
  auto back = decode_record(j);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->repeat_stop, r.repeat_stop);
  EXPECT_TRUE(back->reps[0].warmup);
  EXPECT_EQ(back->samples("sys_s"), (std::vector<double>{0.5, 0.125}));  // rep 0 left out
  EXPECT_EQ(encode_record(*back), j);
  json old = encode_record(sample());
  ASSERT_FALSE(old.contains("repeat_stop"));
  auto loaded = decode_record(old);
  ASSERT_TRUE(loaded.ok());
  EXPECT_FALSE(loaded->repeat_stop);
  EXPECT_FALSE(loaded->reps[0].warmup);
  json bad = j;
  bad["repeat_stop"]["reason"] = "tired";
  EXPECT_FALSE(decode_record(bad).ok());
}

// A libvirt run keeps where it ran; a QEMU run's record has no libvirt section at all.
TEST(RecordCodec, LibvirtProvenanceRoundTripsAndIsAbsentForQemuRuns) {
  RunRecord r = sample();
  EXPECT_FALSE(encode_record(r).at("provenance").at("boot").contains("libvirt"));
  r.provenance.backend = "libvirt";
  r.provenance.hypervisor_uri = "qemu+tcp://127.0.0.1:16509/system";
  r.provenance.hypervisor_host = "vm";
  r.provenance.libvirt_version = "9.0.0";
  r.provenance.lost_hosts = {"qemu:///system: the connection to libvirt at qemu:///system is lost"};
  const json j = encode_record(r);
  EXPECT_EQ(j.at("provenance").at("boot").at("libvirt").at("uri"),
            "qemu+tcp://127.0.0.1:16509/system");
  auto back = decode_record(j);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->provenance.hypervisor_host, "vm");
  EXPECT_EQ(back->provenance.libvirt_version, "9.0.0");
  EXPECT_EQ(back->provenance.lost_hosts, r.provenance.lost_hosts);
  EXPECT_EQ(encode_record(*back), j);
}

TEST(RecordCodec, FailedRunKeepsItsClass) {
  RunRecord r = sample();
  r.status = "failed";
  r.failure = FailureClass::kWorkload;
  auto back = decode_record(encode_record(r));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->failure, FailureClass::kWorkload);
  // A status that contradicts its class is damage, not a guess.
  json bad = encode_record(r);
  bad["failure_class"] = "";
  EXPECT_FALSE(decode_record(bad).ok());
}

TEST(RecordCodec, DamagedOrUnknownInputIsAnErrorNamingTheFile) {
  json j = encode_record(sample());
  j["reps"][0].erase("deltas");
  auto r = decode_record(j, "runs/x/run.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("runs/x/run.json: schema 2 record is damaged"),
            std::string::npos)
      << r.error().message;
  j = encode_record(sample());
  j["schema"] = 3;
  EXPECT_NE(decode_record(j).error().message.find("schema 3"), std::string::npos);
  j.erase("schema");
  EXPECT_NE(decode_record(j).error().message.find("no schema version"), std::string::npos);
  EXPECT_FALSE(parse_record("{\"schema\": 2").ok());  // torn file
  EXPECT_FALSE(decode_record(json::array()).ok());
}

// A run.json as foliolab wrote it before the typed record (schema 1: the runner's raw JSON
// with the guest report nested).
constexpr const char* kRecordSchema1 = R"({
  "run_id": "x86_64.6-12-mthp-vmstat.64k-mthp.fault.3f2a9c1e",
  "experiment": "quickstart",
  "arch": "x86_64",
  "kernel_spec": {"name": "6.12-mthp-vmstat", "source": "debian", "config": [],
                  "options": [], "patches": "mthp-vmstat", "cmdline": ""},
  "machine": {"cpus": 1, "memory_mb": 1024, "numa": [], "numa_distance": []},
  "knob_set": {"name": "64K mTHP", "knobs": [["hugepages-64kB/enabled", "always"]],
               "sysctls": [], "cmdline": ""},
  "workload": {"name": "fault", "label": "fault",
               "params": [["size", "64M"], ["threads", "1"], ["mapping", "anon"]]},
  "repeat": 2,
  "host": {"kernel": "6.18.0 x86_64", "cpus": 2, "cpu_model": "AMD EPYC", "hostname": "h1",
           "foliolab_revision": "4e9edcac9f07"},
  "started": "2026-11-30T05:14:30Z",
  "kernel": {"build_id": "995017d1ea572776", "version": "6.12.117",
             "image": "/root/.cache/foliolab/kernels/995017d1ea572776/bzImage",
             "cache_hit": true, "build_seconds": 0},
  "image": {"id": "1111222233334444", "workloads": ["fault", "tlb"]},
  "provenance": {"backend": "qemu", "accel": "tcg", "emulator": "QEMU emulator version 7.2.19",
                 "command": "qemu-system-x86_64 ...", "emulator_exit": "exited with status 0",
                 "seconds": 3.25, "timings_emulated": true},
  "report": {
    "run_report_version": 1, "status": "ok", "reason": "", "has_hello": true,
    "hello": {"agent_version": "1", "release": "6.12.117", "version": "#1 foliolab-995017d1ea572776",
              "machine": "x86_64", "page_size": 4096, "nr_cpus": 1, "mem_total_kb": 1000000,
              "cmdline": "console=ttyS0"},
    "knobs_initial": [["hugepages-64kB/enabled", "never"]],
    "knobs_final": [["hugepages-64kB/enabled", "always"]],
    "knob_sets": [{"path": "hugepages-64kB/enabled", "requested": "always", "readback": "always",
                   "raw": "always inherit madvise [never]", "status": "ok", "error": ""}],
    "reps": [
      {"rep": 0, "has_before": true, "has_after": true, "counters_before": {}, "counters_after": {},
       "deltas": {"mthp.64kB.anon_fault_alloc": 1024}, "has_workload": true, "workload": "fault",
       "exit_status": 0, "signal": 0, "wall_ns": 51000000, "has_stdout": true, "stdout": "",
       "stdout_truncated": false, "metrics": {"faults": 1025, "sys_s": 0.04},
       "ok_marker": true, "fail_marker": false, "fail_reason": ""},
      {"rep": 1, "has_before": true, "has_after": true, "counters_before": {}, "counters_after": {},
       "deltas": {"mthp.64kB.anon_fault_alloc": 1024}, "has_workload": true, "workload": "fault",
       "exit_status": 0, "signal": 0, "wall_ns": 50000000, "has_stdout": true, "stdout": "",
       "stdout_truncated": false, "metrics": {"faults": 1025, "sys_s": 0.05},
       "ok_marker": true, "fail_marker": false, "fail_reason": ""}],
    "errors": [], "done_status": "ok", "records": 12, "damage": "", "damage_offset": 0,
    "problems": []},
  "status": "ok",
  "finished": "2026-11-30T05:14:34Z",
  "schema": 1
})";

TEST(RecordCodec, ReadsSchema1Files) {
  auto r = parse_record(kRecordSchema1, "old/run.json");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->schema, 1);
  EXPECT_TRUE(r->ok());
  EXPECT_EQ(r->failure, FailureClass::kNone);
  EXPECT_EQ(r->id.kernel.name, "6.12-mthp-vmstat");
  EXPECT_EQ(r->id.knob_set.name, "64K mTHP");
  EXPECT_EQ(r->id.workload.params.size(), 3u);
  EXPECT_EQ(r->provenance.kernel_build_id, "995017d1ea572776");
  EXPECT_EQ(r->provenance.accel, "tcg");
  EXPECT_TRUE(r->provenance.timings_emulated);
  EXPECT_EQ(r->provenance.guest.release, "6.12.117");
  EXPECT_EQ(r->provenance.host.cpu_model, "AMD EPYC");
  EXPECT_EQ(r->knobs_set, (KeyValues{{"hugepages-64kB/enabled", "always"}}));
  EXPECT_EQ(r->knob_results.at(0).readback, "always");
  EXPECT_EQ(r->samples("faults"), (std::vector<double>{1025, 1025}));
  EXPECT_EQ(r->samples("mthp.64kB.anon_fault_alloc"), (std::vector<double>{1024, 1024}));
  // Written back, it is a schema-2 record with the same content.
  auto again = decode_record(encode_record(*r));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->schema, 2);
  EXPECT_EQ(again->samples("sys_s"), r->samples("sys_s"));

  json failed = json::parse(kRecordSchema1);
  failed["status"] = "build-failed";
  failed["reason"] = "make failed";
  failed.erase("report");
  auto f = decode_record(failed);
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ(f->failure, FailureClass::kHost);
}

// A run on a Debian root filesystem keeps the recipe and the image id it booted, under
// provenance.image.rootfs; an initramfs run's record has no such key (its schema unchanged).
TEST(RecordCodec, RootfsProvenanceRoundTripsAndIsAbsentForInitramfsRuns) {
  RunRecord r = sample();
  r.provenance.image_id = "1111222233334444";
  const json plain = encode_record(r);
  EXPECT_FALSE(plain.at("provenance").at("image").contains("rootfs"));
  auto plain_back = decode_record(plain);
  ASSERT_TRUE(plain_back.ok()) << plain_back.error().message;
  EXPECT_EQ(plain_back->provenance.rootfs_recipe, "");
  EXPECT_EQ(plain_back->provenance.rootfs_id, "");
  EXPECT_EQ(plain_back->provenance.image_id, "1111222233334444");

  r.provenance.rootfs_recipe = "debian-redis";
  r.provenance.rootfs_id = "5555666677778888";
  const json j = encode_record(r);
  EXPECT_EQ(j.at("schema"), kRunRecordSchema);
  EXPECT_EQ(j.at("provenance").at("image").at("rootfs"),
            json({{"recipe", "debian-redis"}, {"id", "5555666677778888"}}));
  EXPECT_EQ(j.at("provenance").at("image").at("id"), "1111222233334444");  // the initramfs too
  auto back = parse_record(j.dump(2));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->provenance.rootfs_recipe, "debian-redis");
  EXPECT_EQ(back->provenance.rootfs_id, "5555666677778888");
  EXPECT_EQ(encode_record(*back), j);  // nothing lost
}

}  // namespace
}  // namespace foliolab

namespace foliolab {
namespace {

// A rep's distributions round-trip (issue 56) and read as their derived scalars; a damaged one
// is an error naming the file; a record without any (before issue 56) has none.
TEST(RecordCodec, DistributionsRoundTripAndReadAsQuantiles) {
  RunRecord r = sample();
  for (size_t i = 0; i < r.reps.size(); ++i) {
    DistributionBuilder b("ns");
    for (int v = 1; v <= 100; ++v) b.add(v * (1.0 + static_cast<double>(i)));
    r.reps[i].distributions["kprobe.folio_zero_user.latency_ns"] = b.take();
  }
  const nlohmann::json j = encode_record(r);
  auto back = parse_record(j.dump());
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->reps[2].distributions, r.reps[2].distributions);
  EXPECT_EQ(back->samples("kprobe.folio_zero_user.latency_ns.p50"),
            (std::vector<double>{50, 100, 150}));
  EXPECT_EQ(back->samples("kprobe.folio_zero_user.latency_ns.count"),
            (std::vector<double>{100, 100, 100}));
  const auto names = back->metric_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "kprobe.folio_zero_user.latency_ns.p99"),
            names.end());

  nlohmann::json damaged = j;
  damaged["reps"][0]["distributions"]["kprobe.folio_zero_user.latency_ns"]["count"] = 700;
  auto bad = parse_record(damaged.dump(), "runs/x/run.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("runs/x/run.json"), std::string::npos);
  EXPECT_NE(bad.error().message.find("buckets count 100, count says 700"), std::string::npos)
      << bad.error().message;
  EXPECT_TRUE(parse_record(encode_record(sample()).dump())->reps[0].distributions.empty());
}

}  // namespace
}  // namespace foliolab
