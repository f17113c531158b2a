/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Event streams: the NDJSON and binary-frame wire formats of man/scx.7, plain
 * or gzip/zstd-compressed.  Readers detect format and compression from the
 * first bytes, so every tool takes any of them on stdin or from a file.
 *
 * A stream is: header, events (including SCX_EV_LOST records), trailer.
 * Lines/records the reader does not know are skipped and counted, never fatal.
 */
#ifndef SCX_STREAM_H
#define SCX_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/event.h"
#include "json/json.h"
#include "core/topo.h"

enum scx_format { SCX_FMT_AUTO = 0, SCX_FMT_NDJSON, SCX_FMT_BINARY };
enum scx_compress { SCX_COMP_NONE = 0, SCX_COMP_GZIP, SCX_COMP_ZSTD };

/* What a producer promises of its events' order (scx(7), the header's "order"). */
enum scx_order {
	SCX_ORDER_UNKNOWN = 0, /* not said: a producer older than the field */
	SCX_ORDER_TIME,	       /* "time": timestamps never decrease */
	SCX_ORDER_CPU,	       /* "cpu": they never decrease per CPU, across CPUs they may */
};

struct scx_header {
	int version;	   /* SCX_WIRE_VERSION */
	char producer[32]; /* "scx-events", "scx-perfetto" ... */
	char clock[16];	   /* "boottime" */
	char hostname[256];
	char kernel[128];      /* uname -r */
	unsigned nr_cpus;      /* possible cpus of the traced machine */
	struct scx_topo *topo; /* owned; NULL when the producer had none */
	char scheduler[64];    /* sched_ext ops name, "" when none */
	char *options_json;    /* owned; capture options as a JSON object, or NULL */
	uint64_t start_ns;     /* capture start (clock above), 0 if unknown */
	enum scx_order order;  /* written unless SCX_ORDER_UNKNOWN */
};

struct scx_trailer {
	uint64_t counts[SCX_EV__COUNT]; /* events written, by type */
	unsigned nr_cpus;		/* entries in lost[] */
	uint64_t *lost;			/* owned; events lost per cpu */
	uint64_t lost_total;
	uint64_t missed; /* program runs the kernel skipped (written when not 0) */
	uint64_t end_ns; /* capture end, 0 if unknown */
};

void scx_header_free(struct scx_header *h); /* frees owned members only */
void scx_trailer_free(struct scx_trailer *t);

/* ---- reading ------------------------------------------------------------- */

enum scx_read {
	SCX_READ_ERROR = -1, /* scx_reader__error() says what and where */
	SCX_READ_END = 0,    /* end of input (the trailer, if any, was read) */
	SCX_READ_EVENT = 1,  /* *e holds the next event */
	SCX_READ_OTHER = 2,  /* an NDJSON object that is not an event (e.g. an
				   scx-agg snapshot): scx_reader__line() has it */
};

struct scx_reader;

/* path NULL or "-" reads stdin.  NULL + errno on open failure. */
struct scx_reader *scx_reader__open(const char *path);
/* Reads fd (not closed by scx_reader__free()); name is used in messages. */
struct scx_reader *scx_reader__fdopen(int fd, const char *name);
/* Reads from memory (fuzzing, tests); buf must outlive the reader. */
struct scx_reader *scx_reader__mem(const void *buf, size_t len, const char *name);
void scx_reader__free(struct scx_reader *r);

int scx_reader__next(struct scx_reader *r, struct scx_event *e);
/* The header; NULL when the stream had none (available after the first next()). */
const struct scx_header *scx_reader__header(struct scx_reader *r);
/* The trailer; NULL until SCX_READ_END, and when the stream had none. */
const struct scx_trailer *scx_reader__trailer(struct scx_reader *r);
/* "name: line 12: ..." or "name: byte 1234: ...", after SCX_READ_ERROR. */
const char *scx_reader__error(struct scx_reader *r);
/* The raw JSON of the last SCX_READ_OTHER line (not NUL-terminated). */
const char *scx_reader__line(struct scx_reader *r, size_t *len);
/*
 * That line already parsed (valid until the next scx_reader__next()), so a
 * consumer of scx-agg snapshots does not parse each one twice.
 */
const struct scx_json_doc *scx_reader__doc(struct scx_reader *r);
enum scx_format scx_reader__format(struct scx_reader *r);
enum scx_compress scx_reader__compression(struct scx_reader *r);
uint64_t scx_reader__skipped(struct scx_reader *r); /* unknown lines/records */
uint64_t scx_reader__offset(struct scx_reader *r);  /* bytes consumed (decompressed) */
/*
 * After SCX_READ_END: "name: byte N: stream ends without a trailer" when the
 * stream had no trailer (the producer was killed, or the file was cut at a
 * record boundary), else NULL.  Tools print it as a warning.
 */
const char *scx_reader__warning(struct scx_reader *r);
/*
 * Events older than one before them in a stream whose header promises time
 * order ("order":"time"), counted as they are read: 0 while the promise
 * holds.  *msg (when msg is not NULL) then says where the first one was:
 * "name: line N: ..." or "name: byte N: ...".
 */
uint64_t scx_reader__disorder(struct scx_reader *r, const char **msg);

/*
 * The one policy for putting a stream's events in time order, decided by its
 * header, for every consumer that sorts (scx-agg's engine, scx-top's input):
 *   "cpu"  sort within SCX_REORDER_DEFAULT_NS from the first event;
 *   "time" take events as they come; a late one breaks the promise (the
 *          reader counts it, scx_reader__disorder()) and sorting within
 *          SCX_REORDER_DEFAULT_NS starts there, so it is no loss;
 *   no header or no "order" (an older producer): what the consumer did
 *          before the field, sorting within legacy_ns from the first late
 *          event.
 * forced_ns, unless SCX_REORDER_UNSET (the user's --reorder), replaces the
 * window; a "cpu" stream is still sorted from its first event.
 */
#define SCX_REORDER_DEFAULT_NS 100000000ull
#define SCX_REORDER_UNSET UINT64_MAX
struct scx_order_plan {
	uint64_t window_ns; /* 0: events are taken as they come */
	bool from_start;    /* sort from the first event, not from the first late one */
};
struct scx_order_plan scx_order_plan(const struct scx_header *h, uint64_t forced_ns,
				     uint64_t legacy_ns);
/*
 * legacy_ns for the readers that aggregate a stream (scx-agg, scx-mcp), so
 * both take its events in one order: scx-events streams from before "order"
 * were sorted per CPU only (SCX_REORDER_DEFAULT_NS), others are taken as
 * they come (0).
 */
uint64_t scx_order_legacy_ns(const struct scx_header *h);
const char *scx_order_name(enum scx_order o); /* "time", "cpu" or NULL */

/* ---- writing ------------------------------------------------------------- */

struct scx_writer_opts {
	enum scx_format format; /* NDJSON when AUTO */
	enum scx_compress compress;
	int level; /* compression level, 0 = library default */
};

struct scx_writer;

/* path NULL or "-" writes stdout.  NULL + errno. */
struct scx_writer *scx_writer__open(const char *path, const struct scx_writer_opts *o);
/* scx_writer__close() closes fd unless it is 0, 1 or 2. */
struct scx_writer *scx_writer__fdopen(int fd, const struct scx_writer_opts *o);
/*
 * All return 0 or -errno.  -EPIPE means the reader went away: a producer
 * stops quietly (exit 0) and does not try to write a trailer.
 * Output is buffered; nothing reaches the fd before ~64 KiB or a flush.
 */
/* -EINVAL if h->options_json is not a JSON object. */
int scx_writer__header(struct scx_writer *w, const struct scx_header *h);
int scx_writer__event(struct scx_writer *w, const struct scx_event *e);
int scx_writer__trailer(struct scx_writer *w, const struct scx_trailer *t);
/* Pass through one JSON object (an SCX_READ_OTHER line): a line, or a JSON record. */
int scx_writer__raw(struct scx_writer *w, const char *json, size_t n);
int scx_writer__flush(struct scx_writer *w);
/* Flush, end the compression frame, close the fd; 0 or the first error seen. */
int scx_writer__close(struct scx_writer *w);

/* Append one event as an NDJSON line (with '\n') to b: for tools that
 * mix events into their own output. */
struct scx_buf;
void scx_event_to_json(struct scx_buf *b, const struct scx_event *e);

/*
 * The cgroup side record (scx(7), Cgroup records): maps a cgroup v2 id of
 * the events to its path below the cgroup2 mount, "/" for the root.
 */
#define SCX_CGROUP_PATH_MAX 4096
/* Append {"type":"cgroup","id":N,"path":"..."} (no newline) to b. */
void scx_cgroup_rec_json(struct scx_buf *b, uint64_t id, const char *path);
/*
 * From a parsed "other" object (scx_reader__doc()): 1 and *id, path (NUL-
 * terminated, at most size - 1 bytes) if it is a cgroup record, 0 if it is
 * not one, -EINVAL with err set if it is a malformed one.
 */
int scx_cgroup_rec_parse(const struct scx_json_doc *d, uint64_t *id, char *path, size_t size,
			 char *err, size_t errsz);

/* Parse --format / --compress words; -EINVAL if unknown. */
int scx_format_parse(const char *s, enum scx_format *f);
int scx_compress_parse(const char *s, enum scx_compress *c);

/* Topology from a JSON file holding the header's "topology" array (or a whole
 * header line): the --topology FILE option.  NULL + errno, message in err. */
struct scx_topo *scx_topo__from_file(const char *path, char *err, size_t errsz);

#endif
