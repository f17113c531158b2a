/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scx-prof: memory-access profiles (perf mem) into scx_mitosis cell configs.
 *
 * Everything here works on buffers and streams so that another program can
 * parse, classify and build a config without files on disk (the review of the
 * original scxprof asked for exactly that); cmd/scx-prof.c only wires it up.
 *
 *   perf.script line --prof_script_parse--> struct prof_sample
 *   struct prof_sample --prof_jsonl_write--> perf.jsonl line
 *   perf.jsonl line --prof_rec_parse--> struct prof_rec --prof_extract__add-->
 *   groups --prof_extract__summary / __config--> -v text, cell config JSON
 */
#ifndef SCX_PROF_H
#define SCX_PROF_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/util.h"

/* perf script field list used by record --perf-script and process */
#define PROF_SCRIPT_FIELDS "comm,tid,pid,time,cgroup,ip,addr,phys_addr,data_page_size,dso,sym"

/* ---- perf.script (prof_script.c) ------------------------------------------- */

enum prof_line {
	PROF_LINE_OK,
	PROF_LINE_BLANK,     /* only whitespace: not counted at all */
	PROF_LINE_BAD,	     /* unparseable; *why says why */
	PROF_LINE_NO_CGROUP, /* a well-formed line without the cgroup field (perf < 6.3) */
};

struct prof_sample {
	struct scx_str comm, time, addr, cgroup, ip, sym, dso, phys;
	uint32_t pid, tid;  /* perf prints PID/TID: pid is the first number */
	uint64_t page_size; /* bytes; 0 for N/A or unparseable */
};

/*
 * Parse one perf script line (without its newline) printed with
 * PROF_SCRIPT_FIELDS.  Views in *s point into line.  Returns an enum prof_line;
 * for PROF_LINE_BAD and PROF_LINE_NO_CGROUP *why is a static reason.
 */
int prof_script_parse(const char *line, size_t len, struct prof_sample *s, const char **why);
/* "4K", "2M", "1G", "N/A", "8192": bytes, 0 when unknown */
uint64_t prof_page_size(const char *s, size_t n);
#define PROF_PAGE_BAD UINT64_MAX /* prof_page_size() of something that is no page size */

enum prof_skip {
	PROF_KEEP,
	PROF_SKIP_NO_PHYS, /* phys_addr 0 or missing */
	PROF_SKIP_COMM,	   /* perf itself or the idle task */
};
int prof_sample_filter(const struct prof_sample *s);

/* Append s as one perf.jsonl line (with '\n'); hint is appended when non-NULL. */
void prof_jsonl_write(struct scx_buf *b, const struct prof_sample *s, const uint64_t *hint);
/*
 * Bytes of the longest prefix of s[0..n), at most max, made of whole valid
 * UTF-8 characters: what lib/json's scx_json_escape() (serde_json-compatible;
 * invalid UTF-8 becomes U+FFFD) writes unchanged, so that the string a JSON
 * reader gets back is those very bytes.
 */
size_t prof_utf8_prefix(const char *s, size_t n, size_t max);

/* ---- hints (prof_hints.c) ---------------------------------------------------- */

/* One task-storage hint update, as recorded into hints.jsonl. */
struct prof_hint_rec {
	int32_t pid; /* thread id of the task the hint belongs to */
	int32_t tgid;
	uint64_t hints; /* first 8 bytes of the task-storage value */
	uint64_t ts;	/* CLOCK_MONOTONIC ns */
};

void prof_hint_write(struct scx_buf *b, const struct prof_hint_rec *r);
/* One hints.jsonl line; 0 or -EINVAL with *why set. */
int prof_hint_parse(const char *line, size_t len, struct prof_hint_rec *r, const char **why);
/* The warning printed when the ring buffer overflowed. */
void prof_hints_dropped_msg(struct scx_buf *b, uint64_t dropped);

/* Per-thread hint history, to attach "the latest hint at the sample's time". */
struct prof_hints;
struct prof_hints *prof_hints__new(void);
void prof_hints__add(struct prof_hints *h, const struct prof_hint_rec *r);
/* Load a hints.jsonl file; 0 or -errno, with a message in err naming file and line. */
int prof_hints__load(struct prof_hints *h, const char *path, char *err, size_t errsz);
/* Latest hint of thread tid with timestamp <= ts_ns; false if none. */
bool prof_hints__lookup(struct prof_hints *h, uint32_t tid, uint64_t ts_ns, uint64_t *hint);
void prof_hints__free(struct prof_hints *h);
/* perf's "788.448576" seconds into ns; false if it is not such a number */
bool prof_time_ns(struct scx_str t, uint64_t *ns);

/* ---- process: perf.script stream -> perf.jsonl stream (prof_process.c) -------- */

struct prof_process {
	FILE *verbose;		     /* -v: the reason for every skipped line, or NULL */
	struct prof_hints *hints;    /* attach hints when non-NULL */
	volatile sig_atomic_t *stop; /* prof_process__fd returns -EINTR once set */
	uint64_t parsed, skipped, bad, lineno;
	char err[512];	      /* set when a call returns an error */
	struct scx_buf carry; /* partial line between feeds */
};

/*
 * Feed any chunk of perf.script; complete lines are parsed and their perf.jsonl
 * lines appended to out.  Memory stays bounded by the longest line.  Returns 0,
 * or -EPROTO when the input lacks the cgroup field (err says so).
 */
int prof_process__feed(struct prof_process *p, const char *data, size_t len, struct scx_buf *out);
int prof_process__finish(struct prof_process *p, struct scx_buf *out);
/* read fd to EOF, write perf.jsonl to out fd */
int prof_process__fd(struct prof_process *p, int in, int out);
void prof_process__free(struct prof_process *p);
/* "Parsed N of M records (X skipped, Y unparseable)" */
void prof_process__summary(const struct prof_process *p, struct scx_buf *b);

/* ---- perf.jsonl reader (prof_jsonl.c) ---------------------------------------- */

/* One perf.jsonl record; strings are views into the line or into scratch. */
struct prof_rec {
	struct scx_str comm, time, addr, cgroup, ip, sym, dso, phys;
	uint32_t pid, tid;
	uint64_t page_size;
	bool has_hint;
	uint64_t hint;
};

/* Strict: all 11 keys with the right types; extra keys are ignored. */
int prof_rec_parse(const char *line, size_t len, struct prof_rec *r, struct scx_buf *scratch,
		   size_t *err_off, const char **why);

/* ---- extract: groups and configs (prof_extract.c) ------------------------------ */

enum prof_format { PROF_FMT_MITOSIS, PROF_FMT_PR };

struct prof_extract_opts {
	const char *workload;	  /* substring; default "workload.slice" */
	const char *allotment_re; /* POSIX ERE; default PROF_ALLOTMENT_RE */
	double threshold;	  /* percent of allotment samples a comm must exceed; 5 */
	int format;		  /* enum prof_format */
};
#define PROF_WORKLOAD_DEFAULT "workload.slice"
#define PROF_ALLOTMENT_RE "workload-tw-[^/]+\\.allotment\\.slice"
#define PROF_MITOSIS_MAX_SUBCELLS 8
#define PROF_MITOSIS_MAX_OR 4
#define PROF_MITOSIS_MAX_AND 4
#define PROF_MITOSIS_PREFIX_MAX 15

struct prof_extract;
/* NULL with errno and a message in err (bad regex) */
struct prof_extract *prof_extract__new(const struct prof_extract_opts *o, char *err, size_t errsz);
void prof_extract__add(struct prof_extract *x, struct scx_str cgroup, struct scx_str comm);
/*
 * Feed perf.jsonl text like prof_process__feed; a bad line is fatal: -EINVAL
 * with x's message naming the line and byte.
 */
int prof_extract__feed(struct prof_extract *x, const char *data, size_t len);
int prof_extract__finish(struct prof_extract *x);
const char *prof_extract__error(const struct prof_extract *x);
/* The -v (verbose 1) or -vv (2) summary. */
void prof_extract__summary(struct prof_extract *x, int verbose, struct scx_buf *out);
/*
 * The cell config, pretty-printed like serde_json, with a trailing newline.
 * Notes (subcells folded to respect mitosis' limits) go to warn.
 */
int prof_extract__config(struct prof_extract *x, struct scx_buf *out, struct scx_buf *warn);
void prof_extract__free(struct prof_extract *x);

/* Trailing ASCII digits stripped; the whole comm if that leaves nothing. */
size_t prof_comm_stem(const char *comm, size_t n);

/* ---- JSON pretty printer and mitosis validator (prof_pretty.c, prof_mitosis.c) -- */

/* Re-indent compact JSON like serde_json::to_string_pretty. 0 or -EINVAL. */
int prof_json_pretty(const char *s, size_t n, struct scx_buf *out);
/*
 * Check a config against what scx_mitosis --cell-config accepts (its
 * config.rs rules): 0, or -EINVAL with the first violation in err.
 */
int prof_mitosis_validate(const char *json, size_t len, char *err, size_t errsz);

/* ---- tar.gz with zlib (prof_tar.c) -------------------------------------------- */

/* Pack dir (regular files and subdirectories) into out as BASENAME(dir)/... */
int prof_tar_create(const char *dir, const char *out, char *err, size_t errsz);
/*
 * Extract archive into parent, renaming the archive's single top directory to
 * root (so "x.tar.gz" always gives "x/").  Refuses absolute paths, "..",
 * links and devices.  0 or -errno with err set.
 */
int prof_tar_extract(const char *archive, const char *parent, const char *root, char *err,
		     size_t errsz);
/*
 * The check of one archive member's path NAME: its first component is the
 * archive's top directory (recorded in TOP by the first member, and every
 * later one must match it); absolute paths and ".." are refused.  On true,
 * OUT is PARENT/ROOT/ followed by the rest of NAME.
 */
bool prof_tar_member_path(const char *name, const char *parent, const char *root, char *top,
			  size_t topsz, char *out, size_t outsz);
/* rm -rf; 0 or -errno */
int prof_rmtree(const char *path);

/* ---- record (prof_record.c, prof_hintrec.c) ------------------------------------ */

struct prof_record_opts {
	const char *out; /* output directory */
	uint64_t timeout_ns;
	unsigned ldlat;
	const char *hints_map;	/* pinned task-storage map, or NULL */
	unsigned hints_ring_mb; /* power of two */
	bool perf_script;
	bool no_archive;
	const char *perf;	     /* perf binary */
	volatile sig_atomic_t *stop; /* set by the caller's signal handler */
};

/* perf binary: $SCX_PROF_PERF, then $SCXPROF_PERF, then "perf" */
const char *prof_perf_binary(void);
/* argv of the perf mem record command (NULL-terminated, static storage inside o) */
int prof_record_argv(const struct prof_record_opts *o, const char **argv, size_t max);
/*
 * Run the whole recording.  0 on success (also when interrupted: the partial
 * output is removed and *interrupted set), 1-style failures as -errno with the
 * reason already printed.
 */
int prof_record(const struct prof_record_opts *o, bool *interrupted);

/*
 * perf script -F PROF_SCRIPT_FIELDS -i data > out; 0, -EINTR when *stop was
 * set, or -errno with perf's own message in err.  out is removed on failure.
 */
int prof_perf_script(const char *perf, const char *data, const char *out,
		     volatile sig_atomic_t *stop, char *err, size_t errsz);

/* Task-storage hint recorder (BPF). */
struct prof_hintrec;
/*
 * Open the pinned map, load and attach the recorder; NULL with a message in
 * err when hints cannot be recorded here.  *how says which attach point works.
 */
struct prof_hintrec *prof_hintrec__new(const char *map_path, unsigned ring_mb, int out_fd,
				       char *err, size_t errsz);
const char *prof_hintrec__how(const struct prof_hintrec *r);
int prof_hintrec__fd(const struct prof_hintrec *r);		/* epoll fd of the ring buffer */
int prof_hintrec__poll(struct prof_hintrec *r, int timeout_ms); /* consume, write */
int prof_hintrec__scan(struct prof_hintrec *r); /* every task's hint now, then write */
uint64_t prof_hintrec__written(const struct prof_hintrec *r);
/* detach, final drain; returns the number of dropped updates */
uint64_t prof_hintrec__free(struct prof_hintrec *r);

#endif
