#include <gtest/gtest.h>

#include "backend/libvirt_backend.h"

namespace foliolab {
namespace {

constexpr const char* kUri = "qemu:///system";

AccelRequest request(AccelChoice choice) { return {.choice = choice, .arch = Arch::kX86_64}; }

// The QEMU backend's probe, as a seam: counts its calls and answers what the test says.
struct FakeProbe {
  AccelVerdict answer{Accel::kTcg, "under KVM the guest printed nothing within 30s"};
  int calls = 0;
  std::function<Result<AccelVerdict>(const AccelRequest&)> fn() {
    return [this](const AccelRequest&) -> Result<AccelVerdict> {
      ++calls;
      return answer;
    };
  }
};

TEST(LibvirtAccel, TcgRequestedNeedsNoProbe) {
  FakeProbe probe;
  auto v = libvirt_accel(request(AccelChoice::kTcg), kUri, {.offered = true, .same_machine = true},
                         probe.fn());
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->accel, Accel::kTcg);
  EXPECT_EQ(probe.calls, 0);
}

TEST(LibvirtAccel, NoKvmDomainFallsBackToTcgOrRefusesAnExplicitKvm) {
  FakeProbe probe;
  const LibvirtKvmOffer none{
      .offered = false, .why_not = "the accel 'kvm' is not supported", .same_machine = true};
  auto v = libvirt_accel(request(AccelChoice::kAuto), kUri, none, probe.fn());
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->accel, Accel::kTcg);
  EXPECT_NE(v->reason.find("offers no kvm domain: the accel 'kvm' is not supported"),
            std::string::npos)
      << v->reason;
  auto k = libvirt_accel(request(AccelChoice::kKvm), kUri, none, probe.fn());
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.error().message.find("accel kvm was requested for x86_64 guests"), std::string::npos);
  EXPECT_EQ(probe.calls, 0);
}

// KVM advertised on this machine proves nothing: the real probe boot decides.
TEST(LibvirtAccel, AdvertisedKvmOnThisMachineGoesThroughTheProbeBoot) {
  FakeProbe probe;
  auto v = libvirt_accel(request(AccelChoice::kAuto), kUri, {.offered = true, .same_machine = true},
                         probe.fn());
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->accel, Accel::kTcg);
  EXPECT_EQ(v->reason, "under KVM the guest printed nothing within 30s");
  EXPECT_EQ(probe.calls, 1);
  probe.answer = {Accel::kKvm, "a KVM probe boot reached the guest agent in 0.4s"};
  auto k = libvirt_accel(request(AccelChoice::kAuto), kUri, {.offered = true, .same_machine = true},
                         probe.fn());
  ASSERT_TRUE(k.ok());
  EXPECT_EQ(k->accel, Accel::kKvm);
}

TEST(LibvirtAccel, ARemoteHostsKvmIsTrustedOnlyWhenAskedFor) {
  FakeProbe probe;
  const LibvirtKvmOffer remote{.offered = true, .same_machine = false};
  auto v = libvirt_accel(request(AccelChoice::kAuto), "qemu+ssh://lab1/system", remote, probe.fn());
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->accel, Accel::kTcg);
  EXPECT_NE(v->reason.find("cannot be probed from here"), std::string::npos) << v->reason;
  auto k = libvirt_accel(request(AccelChoice::kKvm), "qemu+ssh://lab1/system", remote, probe.fn());
  ASSERT_TRUE(k.ok());
  EXPECT_EQ(k->accel, Accel::kKvm);
  EXPECT_EQ(probe.calls, 0);
}

}  // namespace
}  // namespace foliolab

namespace foliolab {
namespace {

TEST(LibvirtUri, StreamsOnlyForUrisThatNameAHost) {
  EXPECT_FALSE(libvirt_uri_names_host("qemu:///system"));
  EXPECT_FALSE(libvirt_uri_names_host("qemu:///system?socket=/tmp/x/libvirt-sock"));
  EXPECT_FALSE(libvirt_uri_names_host("qemu:///session"));
  EXPECT_TRUE(libvirt_uri_names_host("qemu+tcp://127.0.0.1:16509/system"));
  EXPECT_TRUE(libvirt_uri_names_host("qemu+ssh://root@lab1/system"));
  EXPECT_FALSE(libvirt_uri_names_host("test"));
}

}  // namespace
}  // namespace foliolab
