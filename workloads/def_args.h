/* A workload's .def read by its own program: each FL_PARAM line becomes an entry of the
 * program's `struct wl_arg spec[]` (key, default, bounds; common.h), every other line nothing.
 * The workload catalog (harness/catalog/workload_catalog.cc) reads the same lines, so a
 * parameter, its default and its bounds are written once. */
#ifndef FOLIOLAB_WORKLOAD_DEF_ARGS_H
#define FOLIOLAB_WORKLOAD_DEF_ARGS_H

#define FL_WORKLOAD(name, doc)
#define FL_PACKAGES(list)
#define FL_FULL_GUEST(why)
#define FL_METRIC(name, unit, better, kind, doc)
#define FL_PAGE_MULTIPLE(name)
#define FL_PRIMARY(name)
#define FL_PEAK(where)
#define FL_PARAM(name, type, def, min, max, choices, doc) {name, def, NULL, min, max},

#endif
