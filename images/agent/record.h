/* foliolab guest agent: the framed record stream (docs/guest-protocol.md "Record channel").
 * Uses base only. */
#ifndef FOLIOLAB_AGENT_RECORD_H
#define FOLIOLAB_AGENT_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "base.h"

#define RESULTS_PORT_NAME "org.foliolab.results"

/* `key\tvalue\n` payload lines. Tabs and newlines inside value become spaces so that a line
 * always parses; keys are produced by the agent and never hold them. */
void kv_add(struct sb *b, const char *key, const char *value);
void kv_addf(struct sb *b, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

uint32_t crc32_ieee(uint32_t crc, const void *data, size_t n); /* zlib crc32() semantics */

/* Opens the results channel: the inherited descriptor in host mode; on a lab machine
 * (foliolab.report=tcp:<IPv4>:<port> on the command line) a TCP connection greeted with the
 * job's nonce (/job/nonce); else the virtio port named RESULTS_PORT_NAME. Each is tried for up
 * to timeout_ms. 0 when open. */
int port_open(int timeout_ms);

void record_emit(const char *type, const void *payload, size_t len);
void record_emit_sb(const char *type, const struct sb *b);

/* `done status=<status>` record, and the same on the console. */
void emit_done(const char *status);

/* Writes `error` and `done status=failed` (when the port is open), then powers off. */
_Noreturn void fail_run(const char *stage, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
