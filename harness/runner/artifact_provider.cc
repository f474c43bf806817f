#include "runner/artifact_provider.h"

#include <sys/utsname.h>

namespace foliolab {
KernelArtifact host_kernel_artifact(const KernelSpec& spec, Arch arch) {
  KernelArtifact k;
  utsname u{};
  if (::uname(&u) == 0) k.version = u.release;
  k.kernel_name = spec.name;
  k.arch = arch;
  k.cache_hit = true;
  return k;
}

}  // namespace foliolab
