import COprunSystem
import Glibc

/// How many CPUs there are to run jobs on.
public enum CPUCount {
  /// CPUs online (sysconf(_SC_NPROCESSORS_ONLN)), at least 1.
  public static var online: Int { max(sysconf(Int32(_SC_NPROCESSORS_ONLN)), 1) }

  /// CPUs this process may run on (its affinity mask, as `nproc` counts):
  /// the default max-concurrent.
  public static var available: Int { Int(oprun_cpu_count_available()) }
}
