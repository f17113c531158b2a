/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Field numbers of the Perfetto protos that the hand-written encoders
 * (perfetto_write.c, perfetto_readable.c) and decoders (perfetto_read.c,
 * perfetto_track.c) use, by message, with upstream's field names (package
 * perfetto.protos, from the protos of google/perfetto v58; proto/ holds the
 * subset protoc decodes our traces with).  Fields only the reader knows are
 * here too, so no number is written twice.  Our own fields, numbered 50001
 * and up so Perfetto skips them, are marked SCX.
 */
#ifndef SCX_PERFETTO_FIELDS_H
#define SCX_PERFETTO_FIELDS_H

/* Trace */
enum { PF_TRACE_PACKET = 1 };

/* TracePacket: its data (a oneof) */
enum {
	PF_PKT_FTRACE_EVENTS = 1,
	PF_PKT_PROCESS_TREE = 2,
	PF_PKT_CLOCK_SNAPSHOT = 6,
	PF_PKT_TRACK_EVENT = 11,
	PF_PKT_TRACE_CONFIG = 33,
	PF_PKT_SYSTEM_INFO = 45,
	PF_PKT_COMPRESSED_PACKETS = 50,
	PF_PKT_TRACK_DESCRIPTOR = 60,
	PF_PKT_SERVICE_EVENT = 69,
	PF_PKT_GENERIC_KERNEL_PROCESS_TREE = 122,
	PF_PKT_ZSTD_COMPRESSED_PACKETS = 133,
};
/* TracePacket: the fields beside the data */
enum {
	PF_PKT_TRUSTED_UID = 3,
	PF_PKT_TIMESTAMP = 8,
	PF_PKT_TRUSTED_SEQUENCE_ID = 10,
	PF_PKT_INTERNED_DATA = 12,
	PF_PKT_SEQUENCE_FLAGS = 13,
	PF_PKT_INCREMENTAL_STATE_CLEARED = 41, /* deprecated for sequence_flags */
	PF_PKT_PREVIOUS_PACKET_DROPPED = 42,
	PF_PKT_TIMESTAMP_CLOCK_ID = 58,
	PF_PKT_TRACE_PACKET_DEFAULTS = 59,
	PF_PKT_TRUSTED_PID = 79,
	PF_PKT_FIRST_PACKET_ON_SEQUENCE = 87,
	PF_PKT_MACHINE_ID = 98,
};
/* TracePacket.sequence_flags */
enum { PF_SEQ_INCREMENTAL_STATE_CLEARED = 1 };

/* TracingServiceEvent */
enum { PF_SVC_TRACING_STARTED = 2 };

/* SystemInfo and its Utsname */
enum {
	PF_SYSINFO_UTSNAME = 1,
	PF_SYSINFO_TRACING_SERVICE_VERSION = 4,
	PF_SYSINFO_NUM_CPUS = 8,
	PF_SYSINFO_MACHINE_NAME = 17,
	PF_UTS_SYSNAME = 1,
	PF_UTS_RELEASE = 3,
};

/* ClockSnapshot, its Clock, and the BuiltinClock ids */
enum {
	PF_CLKSNAP_CLOCKS = 1,
	PF_CLOCK_ID = 1,
	PF_CLOCK_TIMESTAMP = 2,
	PF_BUILTIN_CLOCK_REALTIME = 1,
	PF_BUILTIN_CLOCK_BOOTTIME = 6,
};

/* ProcessTree, its Process and Thread */
enum {
	PF_PTREE_PROCESSES = 1,
	PF_PTREE_THREADS = 2,
	PF_PROCESS_PID = 1,
	PF_PROCESS_PPID = 2,
	PF_PROCESS_CMDLINE = 3,
	PF_PROCESS_CMDLINE_IS_COMM = 9,
	PF_THREAD_TID = 1,
	PF_THREAD_NAME = 2,
	PF_THREAD_TGID = 3,
};

/* GenericKernelProcessTree (wprof) and its Process */
enum {
	PF_GKPTREE_PROCESSES = 1,
	PF_GKPROCESS_PID = 1,
	PF_GKPROCESS_PPID = 2,
	PF_GKPROCESS_CMDLINE = 3,
};

/* FtraceEventBundle */
enum {
	PF_BUNDLE_CPU = 1,
	PF_BUNDLE_EVENT = 2,
	PF_BUNDLE_LOST_EVENTS = 3,
	PF_BUNDLE_COMPACT_SCHED = 4,
	PF_BUNDLE_LAST_READ_EVENT_TIMESTAMP = 9, /* older name of the next one */
	PF_BUNDLE_PREVIOUS_BUNDLE_END_TIMESTAMP = 10,
	PF_BUNDLE_SCX_LOST_COUNT = 50001, /* SCX: events lost before the bundle */
	PF_BUNDLE_SCX_LOST_TS = 50002,	  /* SCX: when they were lost */
};

/* FtraceEventBundle.CompactSched: packed arrays, one element per event */
enum {
	PF_CS_SWITCH_TIMESTAMP = 1, /* deltas */
	PF_CS_SWITCH_PREV_STATE = 2,
	PF_CS_SWITCH_NEXT_PID = 3,
	PF_CS_SWITCH_NEXT_PRIO = 4,
	PF_CS_INTERN_TABLE = 5, /* repeated string, not an array of numbers */
	PF_CS_SWITCH_NEXT_COMM_INDEX = 6,
	PF_CS_WAKING_TIMESTAMP = 7, /* deltas */
	PF_CS_WAKING_PID = 8,
	PF_CS_WAKING_TARGET_CPU = 9,
	PF_CS_WAKING_PRIO = 10,
	PF_CS_WAKING_COMM_INDEX = 11,
	PF_CS_WAKING_COMMON_FLAGS = 12,
	PF_CS__LAST = PF_CS_WAKING_COMMON_FLAGS,
};

/* FtraceEvent: common fields, then the event oneof's ids */
enum {
	PF_FTRACE_TIMESTAMP = 1,
	PF_FTRACE_PID = 2,
	PF_FTRACE_COMMON_FLAGS = 5,
	PF_FTRACE_SCX_SWITCH = 50001, /* SCX: sched_ext data beside a sched_switch */
};
enum {
	PF_EV_SCHED_SWITCH = 4,
	PF_EV_CPU_FREQUENCY = 11,
	PF_EV_CPU_IDLE = 13,
	PF_EV_SCHED_WAKEUP = 17,
	PF_EV_SCHED_WAKING = 20,
	PF_EV_IPI_ENTRY = 21,
	PF_EV_IPI_EXIT = 22,
	PF_EV_IPI_RAISE = 23,
	PF_EV_SOFTIRQ_ENTRY = 24,
	PF_EV_SOFTIRQ_EXIT = 25,
	PF_EV_IRQ_HANDLER_ENTRY = 36,
	PF_EV_IRQ_HANDLER_EXIT = 37,
	PF_EV_SCHED_WAKEUP_NEW = 114,
	PF_EV_TASK_NEWTASK = 235,
	PF_EV_TASK_RENAME = 236,
	PF_EV_SCHED_PROCESS_EXEC = 237,
	PF_EV_SCHED_PROCESS_EXIT = 238,
	PF_EV_SCHED_PROCESS_FORK = 239,
	PF_EV_SCHED_PROCESS_FREE = 240,
	PF_EV_SCHED_MIGRATE_TASK = 491,
	PF_EV_SCX_DSQ_INSERT = 50002, /* SCX */
	PF_EV_SCX_CPUHP_ENTER = 50003,
	PF_EV_SCX_CPUHP_EXIT = 50004,
	PF_EV_SCX_ENABLE = 50005,
	PF_EV_SCX_DISABLE = 50006,
	PF_EV_SCX_IPI_SEND = 50007, /* ipi_send with its callsite and one target */
};

/* The events' own fields */
enum {
	/* SchedSwitchFtraceEvent */
	PF_SW_PREV_COMM = 1,
	PF_SW_PREV_PID = 2,
	PF_SW_PREV_PRIO = 3,
	PF_SW_PREV_STATE = 4,
	PF_SW_NEXT_COMM = 5,
	PF_SW_NEXT_PID = 6,
	PF_SW_NEXT_PRIO = 7,
	/* SCX: the sched_ext data of a switch (PF_FTRACE_SCX_SWITCH) */
	PF_SCXSW_DSQ_ID = 1,
	PF_SCXSW_DSQ_LAT_NS = 2,
	PF_SCXSW_DSQ_VTIME = 3,
	PF_SCXSW_SLICE_NS = 4,
	PF_SCXSW_PREV_SLICE_USED_NS = 5,
	PF_SCXSW_DSQ_DEPTH = 6,
	PF_SCXSW_LAYER_ID = 7,
	/* SchedWaking/Wakeup/WakeupNewFtraceEvent */
	PF_WK_COMM = 1,
	PF_WK_PID = 2,
	PF_WK_PRIO = 3,
	PF_WK_SUCCESS = 4,
	PF_WK_TARGET_CPU = 5,
	/* SchedMigrateTaskFtraceEvent */
	PF_MIG_COMM = 1,
	PF_MIG_PID = 2,
	PF_MIG_PRIO = 3,
	PF_MIG_ORIG_CPU = 4,
	PF_MIG_DEST_CPU = 5,
	/* TaskNewtaskFtraceEvent */
	PF_NEWTASK_PID = 1,
	PF_NEWTASK_COMM = 2,
	PF_NEWTASK_CLONE_FLAGS = 3,
	/* SchedProcessForkFtraceEvent */
	PF_FORK_PARENT_COMM = 1,
	PF_FORK_PARENT_PID = 2,
	PF_FORK_CHILD_COMM = 3,
	PF_FORK_CHILD_PID = 4,
	/* SchedProcessExecFtraceEvent */
	PF_EXEC_FILENAME = 1,
	PF_EXEC_PID = 2,
	PF_EXEC_OLD_PID = 3,
	PF_EXEC_SCX_COMM = 50001, /* SCX: the comm after the exec */
	/* SchedProcessExitFtraceEvent */
	PF_EXIT_COMM = 1,
	PF_EXIT_PID = 2,
	PF_EXIT_TGID = 3,
	PF_EXIT_PRIO = 4,
	/* SchedProcessFreeFtraceEvent */
	PF_FREE_COMM = 1,
	PF_FREE_PID = 2,
	PF_FREE_PRIO = 3,
	/* TaskRenameFtraceEvent */
	PF_RENAME_PID = 1,
	PF_RENAME_OLDCOMM = 2,
	PF_RENAME_NEWCOMM = 3,
	/* SoftirqEntry/ExitFtraceEvent */
	PF_SOFTIRQ_VEC = 1,
	/* IrqHandlerEntry/ExitFtraceEvent */
	PF_IRQ_IRQ = 1,
	PF_IRQ_RET = 2,
	/* IpiRaiseFtraceEvent */
	PF_IPI_RAISE_TARGET_CPUS = 1,
	/* SCX: ipi_send */
	PF_SCXIPI_TARGET_CPU = 1,
	PF_SCXIPI_CALLSITE = 2,
	/* CpuFrequencyFtraceEvent, CpuIdleFtraceEvent */
	PF_CPU_STATE = 1,
	PF_CPU_CPU_ID = 2,
	/* SCX: dsq_insert */
	PF_SCXDSQ_PID = 1,
	PF_SCXDSQ_DSQ_ID = 2,
	PF_SCXDSQ_VTIME = 3,
	PF_SCXDSQ_SLICE_NS = 4,
	PF_SCXDSQ_DEPTH = 5,
	PF_SCXDSQ_COMM = 6,
	PF_SCXDSQ_FROM_DSQ_ID = 7, /* moves only */
	/* SCX: cpuhp_enter, cpuhp_exit */
	PF_SCXHP_CPU_ID = 1,
	PF_SCXHP_TARGET = 2,
	PF_SCXHP_IDX = 3,
	PF_SCXHP_RET = 4,
	/* SCX: scheduler enable, disable */
	PF_SCXOPS_NAME = 1,
};

/* TrackDescriptor, ProcessDescriptor, ThreadDescriptor, CounterDescriptor */
enum {
	PF_TD_UUID = 1,
	PF_TD_NAME = 2,
	PF_TD_PROCESS = 3,
	PF_TD_THREAD = 4,
	PF_TD_PARENT_UUID = 5,
	PF_TD_COUNTER = 8,
	PF_TD_SCX_READABLE = 50001, /* SCX: a thread track of --readable's own */
	PF_PROCESS_DESC_PID = 1,
	PF_PROCESS_DESC_PROCESS_NAME = 6,
	PF_THREAD_DESC_PID = 1,
	PF_THREAD_DESC_TID = 2,
	PF_THREAD_DESC_THREAD_NAME = 5,
	PF_COUNTER_DESC_UNIT = 3,
};
/* CounterDescriptor.Unit */
enum { PF_UNIT_TIME_NS = 1, PF_UNIT_COUNT = 2 };

/* TrackEvent, DebugAnnotation */
enum {
	PF_TE_CATEGORY_IIDS = 3,
	PF_TE_DEBUG_ANNOTATIONS = 4,
	PF_TE_TYPE = 9,
	PF_TE_NAME_IID = 10,
	PF_TE_TRACK_UUID = 11,
	PF_TE_CATEGORIES = 22,
	PF_TE_NAME = 23,
	PF_TE_COUNTER_VALUE = 30,
	PF_TE_FLOW_IDS_OLD = 36, /* deprecated: varints, not fixed64 */
	PF_TE_TERMINATING_FLOW_IDS_OLD = 42,
	PF_TE_FLOW_IDS = 47,
	PF_TE_TERMINATING_FLOW_IDS = 48,
	PF_DA_NAME_IID = 1,
	PF_DA_BOOL_VALUE = 2,
	PF_DA_UINT_VALUE = 3,
	PF_DA_INT_VALUE = 4,
	PF_DA_STRING_VALUE = 6,
	PF_DA_NAME = 10,
	PF_DA_STRING_VALUE_IID = 17,
};
/* TrackEvent.Type */
enum { PF_TE_SLICE_BEGIN = 1, PF_TE_SLICE_END = 2, PF_TE_INSTANT = 3, PF_TE_COUNTER = 4 };

/* InternedData, and its entries: EventCategory, EventName, DebugAnnotationName, InternedString */
enum {
	PF_INTERNED_EVENT_CATEGORIES = 1,
	PF_INTERNED_EVENT_NAMES = 2,
	PF_INTERNED_DEBUG_ANNOTATION_NAMES = 3,
	PF_INTERNED_DEBUG_ANNOTATION_STRING_VALUES = 29,
	PF_INTERNED_IID = 1,
	PF_INTERNED_NAME = 2, /* InternedString's str */
};

#endif
