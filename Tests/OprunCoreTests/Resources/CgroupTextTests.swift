import OprunCore
import Testing

/// The kernel's cgroup files as the kernel writes them: a job's counters, oprun's own
/// cgroups and the mounts they are found under.
@Suite struct CgroupTextTests {
  @Test func anOutOfMemoryKillIsCountedFromV2MemoryEvents() {
    let events = "low 0\nhigh 0\nmax 41\noom 1\noom_kill 1\noom_group_kill 0\n"
    #expect(CgroupText.outOfMemoryKills(events) == 1)
    #expect(CgroupText.outOfMemoryKills("low 0\nhigh 0\nmax 3\noom 0\noom_kill 0\n") == 0)
  }

  @Test func anOutOfMemoryKillIsCountedFromV1OomControl() {
    #expect(CgroupText.outOfMemoryKills("oom_kill_disable 0\nunder_oom 0\noom_kill 2\n") == 2)
    // Kernels before 4.13 do not count kills: none is claimed.
    #expect(CgroupText.outOfMemoryKills("oom_kill_disable 0\nunder_oom 0\n") == 0)
  }

  /// Only a peak that came within a charge of the limit can have ended in a kill for passing it.
  @Test func aKillForPassingTheLimitNeedsAPeakNearIt() {
    let limit = 100 << 20
    #expect(CgroupText.mayHaveReachedLimit(peak: limit, limit: limit))
    #expect(CgroupText.mayHaveReachedLimit(peak: limit - (15 << 20), limit: limit))
    #expect(!CgroupText.mayHaveReachedLimit(peak: limit - (17 << 20), limit: limit))
    #expect(!CgroupText.mayHaveReachedLimit(peak: 1 << 20, limit: 1 << 30))
    // An eighth of a large limit: a gigabyte's margin is 128 MB.
    #expect(CgroupText.mayHaveReachedLimit(peak: (1 << 30) - (120 << 20), limit: 1 << 30))
    // A limit smaller than the margin: every peak may have reached it.
    #expect(CgroupText.mayHaveReachedLimit(peak: 0, limit: 8 << 20))
    #expect(!CgroupText.mayHaveReachedLimit(peak: 1 << 40, limit: nil))
    #expect(CgroupText.mayHaveReachedLimit(peak: nil, limit: limit))
  }

  @Test func cpuTimeIsReadFromCpuStat() {
    let stat = "usage_usec 1534210\nuser_usec 1200000\nsystem_usec 334210\nnr_periods 0\n"
    #expect(CgroupText.cpuSeconds(cpuStat: stat) == 1.53421)
    #expect(CgroupText.cpuSeconds(cpuStat: "user_usec 5\n") == nil)
    #expect(CgroupText.number("254296064\n") == 254_296_064)
    #expect(CgroupText.number("max\n") == nil)
  }

  @Test func aCounterIsReadOnlyFromItsOwnLineAndOnlyAsAWholeNumber() {
    // A key that begins another is not it; the kernel's spacing around a value is not part of it.
    #expect(CgroupText.value(of: "oom_kill", in: "oom_kill_disable 1\noom_kill  7 \n") == 7)
    #expect(CgroupText.value(of: "oom", in: "oom_kill 3\n") == nil)
    #expect(CgroupText.value(of: "usage_usec", in: "usage_usec 12x\n") == nil)
    #expect(CgroupText.value(of: "usage_usec", in: "usage_usec\n") == nil)
    #expect(CgroupText.value(of: "usage_usec", in: "user_usec 1\nusage_usec 42") == 42)
    #expect(CgroupText.number("-1\n") == -1)
    #expect(CgroupText.number("") == nil)
    #expect(CgroupText.number("9223372036854775807\n") == .max)
    #expect(CgroupText.number("9223372036854775808\n") == nil)
    #expect(CgroupText.number("12 34\n") == nil)
  }

  @Test func ownCgroupsAreReadPerControllerAndUnified() {
    let text =
      "12:cpu,cpuacct:/user.slice\n4:memory:/process_api/abc\n1:name=systemd:/\n0::/user.slice/user-1000.slice/session-2.scope\n"
    let own = CgroupText.ownCgroups(text)
    #expect(own.unified == "/user.slice/user-1000.slice/session-2.scope")
    #expect(own.byController["memory"] == "/process_api/abc")
    #expect(own.byController["cpuacct"] == "/user.slice" && own.byController["cpu"] == "/user.slice")
  }

  @Test func cgroupMountsAreFoundAndMapAPathToItsFolder() {
    let text = """
      25 30 0:22 / /sys/fs/cgroup ro,nosuid shared:9 - tmpfs tmpfs ro,mode=755
      30 25 0:26 / /sys/fs/cgroup/memory rw,relatime shared:12 - cgroup cgroup rw,memory
      31 25 0:27 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct
      32 25 0:28 /container /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw,nsdelegate
      40 22 8:1 / /mnt/my\\040disk rw - ext4 /dev/sda1 rw
      """
    let mounts = CgroupText.mounts(text)
    #expect(mounts.map(\.type) == ["cgroup", "cgroup", "cgroup2"])
    #expect(mounts[0].controllers == ["rw", "memory"] && mounts[1].controllers.contains("cpuacct"))
    #expect(mounts[0].folder(of: "/process_api/abc") == "/sys/fs/cgroup/memory/process_api/abc")
    #expect(mounts[0].folder(of: "/") == "/sys/fs/cgroup/memory")
    #expect(mounts[2].folder(of: "/container/job") == "/sys/fs/cgroup/unified/job")
    #expect(mounts[2].folder(of: "/elsewhere") == nil)
    #expect(CgroupText.mounts("1 2 0:3 / /a\\040b rw - cgroup2 cgroup2 rw").first?.point == "/a b")
  }
}
