// Test helper: a TCP port on 127.0.0.1 that nothing listens on right now (the kernel's pick for
// port 0: bound, read, closed), for servers a test starts (PostgreSQL, foliolab serve, Slurm).
#pragma once

namespace foliolab {

int free_loopback_port();

}  // namespace foliolab
