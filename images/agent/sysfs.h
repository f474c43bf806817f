/* foliolab guest agent: THP knobs, sysctls and kernel counters (docs/guest-protocol.md
 * "Payloads"). Uses record and base only. */
#ifndef FOLIOLAB_AGENT_SYSFS_H
#define FOLIOLAB_AGENT_SYSFS_H

#define THP_DIR "/sys/kernel/mm/transparent_hugepage"
#define SYSCTL_DIR "/proc/sys"

/* `knobs` record: every readable file below THP_DIR (but `stats`), with phase. */
void knobs_dump(const char *phase);

/* Write value to THP_DIR/path (knob_set) or SYSCTL_DIR/path (sysctl_set), read it back and
 * emit `knob-set`; on any failure also `error`, `done failed`, and power off. path is
 * validated by the job parser. */
void knob_set(const char *path, const char *value);
void sysctl_set(const char *path, const char *value);

/* `counters` record for one rep and phase: /proc/vmstat, mTHP stats, some of /proc/meminfo. */
void counters_snapshot(long rep, const char *phase);

#endif
