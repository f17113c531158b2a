// SPDX-License-Identifier: GPL-2.0
/*
 * scx-prof: memory-access profiles into scx_mitosis cell configurations.
 *   record   perf mem record (+ task hint updates) into DIR.tar.gz
 *   process  perf.script of a profile into perf.jsonl
 *   extract  perf.jsonl into a cell config on stdout
 * The work is in lib/prof*.c; this file is options and wiring.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/opts.h"
#include "prof/prof.h"
#include "core/util.h"

enum {
	OPT_HINTS_MAP = 256,
	OPT_RING_MB,
	OPT_PERF_SCRIPT,
	OPT_NO_ARCHIVE,
	OPT_WORKLOAD,
	OPT_ALLOT_RE,
	OPT_THRESHOLD,
	OPT_FORMAT,
};

static const char *const subcommands[] = { "record", "process", "extract", NULL };

static const struct scx_cmd top_cmd = {
	.name = "scx-prof",
	.summary = "Record memory-access profiles and turn them into scx_mitosis cell configs.",
	.opts = (const struct scx_opt[]){ { 0 } },
	.subcommands = subcommands,
	.footer = "Typical use: scx-prof record -o prof && scx-prof process -i prof.tar.gz &&\n"
		  "scx-prof extract -i prof.out/perf.jsonl > cells.json\n",
};

static const struct scx_opt record_opts[] = {
	{ 'o', "output", "DIR", "output directory, packed into DIR.tar.gz (default scx-prof.out)",
	  "@dir" },
	{ 'd', "duration", "SECONDS", "how long to record (default 30)" },
	{ 'l', "ldlat", "CYCLES", "load latency threshold passed to perf mem (default 10)" },
	{ OPT_HINTS_MAP, "hints-map", "PATH", "record updates of this pinned task-storage map",
	  "@file" },
	{ OPT_RING_MB, "hints-ring-mb", "N",
	  "hint ring buffer size in MB, a power of two "
	  "(default 8)" },
	{ OPT_PERF_SCRIPT, "perf-script", NULL, "also run perf script into perf.script" },
	{ OPT_NO_ARCHIVE, "no-archive", NULL, "keep the directory instead of DIR.tar.gz" },
	{ 'v', "verbose", NULL, "say which hint hook is used; libbpf messages" },
	{ 0 },
};

/* the spellings before the suite had one vocabulary (scx(7), OPTION LETTERS) */
static const struct scx_opt_old record_old[] = {
	{ 'd', 't', "timeout" },
	{ 0 },
};

static const struct scx_cmd record_cmd = {
	.name = "scx-prof record",
	.summary = "Run perf mem record system-wide and save the profile.",
	.opts = record_opts,
	.old = record_old,
	.footer = "The perf binary is $SCX_PROF_PERF, else $SCXPROF_PERF, else perf.\n",
};

/* -f is a format elsewhere in the suite */
static const struct scx_opt_old input_old[] = {
	{ 'i', 'f', "file" },
	{ 0 },
};

static const struct scx_opt process_opts[] = {
	{ 'i', "input", "PROFILE", "profile directory or .tar.gz archive", "@file" },
	{ 'v', "verbose", NULL, "give the reason for every skipped line on stderr" },
	{ 0 },
};

static const struct scx_cmd process_cmd = {
	.name = "scx-prof process",
	.summary = "Parse a profile's perf.script into PROFILE.out/perf.jsonl.",
	.opts = process_opts,
	.old = input_old,
};

static const struct scx_opt extract_opts[] = {
	{ 'i', "input", "FILE", "perf.jsonl to read (- for stdin)", "@file" },
	{ 'v', "verbose", NULL, "per-group comm summary on stderr (-vv: every comm)" },
	{ OPT_WORKLOAD, "workload-cgroup", "TEXT",
	  "cgroups containing TEXT form the workload "
	  "(default workload.slice)" },
	{ OPT_ALLOT_RE, "allotment-cgroup-regex", "RE",
	  "extended regex naming allotment "
	  "cgroups" },
	{ OPT_THRESHOLD, "threshold", "PCT",
	  "a comm needs more than PCT% of allotment samples "
	  "(default 5)" },
	{ OPT_FORMAT, "format", "FMT", "mitosis (what scx_mitosis --cell-config reads) or pr",
	  "mitosis pr" },
	{ 0 },
};

static const struct scx_cmd extract_cmd = {
	.name = "scx-prof extract",
	.summary = "Group samples by cgroup and print a cell configuration on stdout.",
	.opts = extract_opts,
	.old = input_old,
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

static int finish_stdout(void)
{
	if (fflush(stdout) || ferror(stdout)) {
		if (errno == EPIPE)
			return SCX_EXIT_OK;
		scx_warn("cannot write to stdout: %s", strerror(errno));
		return SCX_EXIT_FAIL;
	}
	return SCX_EXIT_OK;
}

/* ---- record ---------------------------------------------------------------- */

static int cmd_record(int argc, char **argv)
{
	struct prof_record_opts o = {
		.out = "scx-prof.out",
		.timeout_ns = 30000000000ULL,
		.ldlat = 10,
		.hints_ring_mb = 8,
		.perf = prof_perf_binary(),
		.stop = &stop,
	};
	const char *arg;
	uint64_t v;
	bool interrupted;
	int c;

	while ((c = scx_getopt(&record_cmd, argc, argv, &arg)) != -1) {
		switch (c) {
		case 'o':
			o.out = arg;
			break;
		case 'd':
			if (scx_parse_duration(arg, &o.timeout_ns) || !o.timeout_ns)
				scx_usage_error(&record_cmd, "bad duration '%s'", arg);
			break;
		case 'l':
			if (scx_parse_u64(arg, &v) || v > 65535)
				scx_usage_error(&record_cmd, "bad ldlat '%s'", arg);
			o.ldlat = (unsigned)v;
			break;
		case OPT_HINTS_MAP:
			o.hints_map = arg;
			break;
		case OPT_RING_MB:
			/* the kernel wants a power-of-two ring: say so before recording */
			if (scx_parse_u64(arg, &v) || !v || (v & (v - 1)) || v > 1024)
				scx_usage_error(&record_cmd,
						"--hints-ring-mb must be a power of two "
						"from 1 to 1024, not '%s'",
						arg);
			o.hints_ring_mb = (unsigned)v;
			break;
		case OPT_PERF_SCRIPT:
			o.perf_script = true;
			break;
		case OPT_NO_ARCHIVE:
			o.no_archive = true;
			break;
		case 'v':
			scx_verbose++;
			break;
		}
	}
	if (optind < argc)
		scx_usage_error(&record_cmd, "unexpected argument '%s'", argv[optind]);
	if (!*o.out)
		scx_usage_error(&record_cmd, "empty output directory name");
	catch_signals();
	if (prof_record(&o, &interrupted))
		return SCX_EXIT_FAIL;
	if (interrupted)
		return SCX_EXIT_FAIL;
	return finish_stdout();
}

/* ---- process ------------------------------------------------------------- */

static bool is_dir(const char *p)
{
	struct stat st;

	return !stat(p, &st) && S_ISDIR(st.st_mode);
}

static bool exists(const char *p)
{
	struct stat st;

	return !lstat(p, &st);
}

static int copy_file(const char *from, const char *to)
{
	int in = open(from, O_RDONLY | O_CLOEXEC), out, err = 0;
	struct stat st;
	off_t off = 0;

	if (in < 0)
		return -errno;
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (out < 0 || fstat(in, &st)) {
		err = -errno;
		goto out;
	}
	while (off < st.st_size) {
		ssize_t n = sendfile(out, in, &off, (size_t)(st.st_size - off));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : -EIO;
			break;
		}
	}
	if (close(out) && !err)
		err = -errno;
	out = -1;
out:
	if (out >= 0)
		close(out);
	close(in);
	return err;
}

/* the profile directory of -f: itself, or an archive's directory next to it */
static char *profile_dir(const char *file)
{
	size_t n = strlen(file);
	char *dir, *parent, *slash, msg[1024];
	const char *base;
	int err;

	while (n > 1 && file[n - 1] == '/')
		n--;
	dir = strndup(file, n);
	if (is_dir(dir))
		return dir;
	if (n <= 7 || strcmp(dir + n - 7, ".tar.gz")) {
		if (!exists(dir))
			scx_die(SCX_EXIT_FAIL, "cannot open '%s': %s", file, strerror(ENOENT));
		scx_die(SCX_EXIT_FAIL, "'%s' is not a directory or .tar.gz archive", file);
	}
	dir[n - 7] = 0;
	if (is_dir(dir))
		return dir; /* unpacked before */
	slash = strrchr(dir, '/');
	parent = slash ? (slash == dir ? strdup("/") : strndup(dir, (size_t)(slash - dir))) :
			 strdup(".");
	base = slash ? slash + 1 : dir;
	err = prof_tar_extract(file, parent, base, msg, sizeof(msg));
	free(parent);
	if (err)
		scx_die(SCX_EXIT_FAIL, "%s", msg);
	printf("Extracted %s\n", dir);
	return dir;
}

/* "a/b", or die: paths longer than PATH_MAX are not worth a partial result */
static void join(char *out, size_t size, const char *a, const char *b)
{
	if ((size_t)snprintf(out, size, "%s/%s", a, b) >= size)
		scx_die(SCX_EXIT_FAIL, "path too long: '%s/%s'", a, b);
}

/* The input: -i FILE or a single operand; anything more, or nothing, is a usage error. */
static const char *input_operand(const struct scx_cmd *cmd, int argc, char **argv, const char *file,
				 const char *missing)
{
	if (optind < argc && !file)
		file = argv[optind++];
	if (optind < argc)
		scx_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
	if (!file)
		scx_usage_error(cmd, "%s", missing);
	return file;
}

static int cmd_process(int argc, char **argv)
{
	struct prof_process p = { 0 };
	struct prof_hints *hints = NULL;
	char *dir, out[4096], script[4096], jsonl[4096], hpath[4096], msg[1024];
	struct scx_buf b = { 0 };
	const char *file = NULL, *arg;
	int c, in, fd, err;
	struct stat st;

	while ((c = scx_getopt(&process_cmd, argc, argv, &arg)) != -1) {
		switch (c) {
		case 'i':
			file = arg;
			break;
		case 'v':
			scx_verbose++;
			break;
		}
	}
	file = input_operand(&process_cmd, argc, argv, file, "no profile given (-i PROFILE)");
	catch_signals();
	dir = profile_dir(file);
	if ((size_t)snprintf(out, sizeof(out), "%s.out", dir) >= sizeof(out))
		scx_die(SCX_EXIT_FAIL, "path too long: '%s'", dir);
	if (exists(out))
		scx_die(SCX_EXIT_FAIL, "output directory '%s' already exists", out);
	join(script, sizeof(script), dir, "perf.script");
	if (!exists(script)) {
		char data[4096];

		join(data, sizeof(data), dir, "perf.data");
		if (!exists(data))
			scx_die(SCX_EXIT_FAIL, "neither perf.script nor perf.data in '%s'", dir);
		printf("Generating perf.script from perf.data...\n");
		fflush(stdout);
		if (prof_perf_script(prof_perf_binary(), data, script, &stop, msg, sizeof(msg)))
			scx_die(SCX_EXIT_FAIL, "%s", msg);
	}
	if (mkdir(out, 0755))
		scx_die(SCX_EXIT_FAIL, "cannot create '%s': %s", out, strerror(errno));
	printf("Output directory: %s\n", out);
	printf("Copying perf.script...\n");
	fflush(stdout);
	join(jsonl, sizeof(jsonl), out, "perf.script");
	if ((err = copy_file(script, jsonl))) {
		scx_warn("cannot copy '%s' to '%s': %s", script, jsonl, strerror(-err));
		goto fail;
	}
	join(hpath, sizeof(hpath), dir, "hints.jsonl");
	if (exists(hpath)) {
		hints = prof_hints__new();
		if (prof_hints__load(hints, hpath, msg, sizeof(msg))) {
			scx_warn("%s", msg);
			goto fail;
		}
		p.hints = hints;
	}
	printf("Parsing perf.script to generate perf.jsonl...\n");
	fflush(stdout);
	join(jsonl, sizeof(jsonl), out, "perf.jsonl");
	in = open(script, O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		scx_warn("cannot open '%s': %s", script, strerror(errno));
		goto fail;
	}
	fd = open(jsonl, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		scx_warn("cannot create '%s': %s", jsonl, strerror(errno));
		close(in);
		goto fail;
	}
	p.verbose = scx_verbose ? stderr : NULL;
	p.stop = &stop;
	err = prof_process__fd(&p, in, fd);
	close(in);
	if (close(fd) && !err) {
		err = -errno;
		snprintf(p.err, sizeof(p.err), "%s", strerror(errno));
	}
	if (err == -EINTR) {
		scx_warn("interrupted: partial output '%s' removed", out);
		goto fail;
	}
	if (err) {
		scx_warn("%s: %s", script, p.err);
		goto fail;
	}
	prof_process__summary(&p, &b);
	scx_buf_addstr(&b, "Output contents:\n");
	join(script, sizeof(script), out, "perf.script");
	if (!stat(script, &st))
		scx_buf_printf(&b, "  perf.script (%lld bytes)\n", (long long)st.st_size);
	if (!stat(jsonl, &st))
		scx_buf_printf(&b, "  perf.jsonl (%lld bytes)\n", (long long)st.st_size);
	fwrite(b.data, 1, b.len, stdout);
	scx_buf_free(&b);
	prof_process__free(&p);
	prof_hints__free(hints);
	free(dir);
	return finish_stdout();
fail:
	prof_rmtree(out);
	prof_process__free(&p);
	prof_hints__free(hints);
	return SCX_EXIT_FAIL;
}

/* ---- extract --------------------------------------------------------------- */

static int cmd_extract(int argc, char **argv)
{
	struct prof_extract_opts o = { .threshold = 5.0, .format = PROF_FMT_MITOSIS };
	struct scx_buf cfg = { 0 }, warn = { 0 }, sum = { 0 };
	const char *file = NULL, *arg;
	struct prof_extract *x;
	char msg[1024], *end;
	static char buf[1 << 20];
	ssize_t n;
	int c, fd, err = 0;

	while ((c = scx_getopt(&extract_cmd, argc, argv, &arg)) != -1) {
		switch (c) {
		case 'i':
			file = arg;
			break;
		case 'v':
			scx_verbose++;
			break;
		case OPT_WORKLOAD:
			if (!*arg)
				scx_usage_error(&extract_cmd, "empty --workload-cgroup");
			o.workload = arg;
			break;
		case OPT_ALLOT_RE:
			o.allotment_re = arg;
			break;
		case OPT_THRESHOLD:
			errno = 0;
			o.threshold = strtod(arg, &end);
			if (errno || end == arg || *end || !(o.threshold >= 0 && o.threshold < 100))
				scx_usage_error(&extract_cmd, "bad threshold '%s' (0 to 100)", arg);
			break;
		case OPT_FORMAT:
			if (!strcmp(arg, "mitosis"))
				o.format = PROF_FMT_MITOSIS;
			else if (!strcmp(arg, "pr"))
				o.format = PROF_FMT_PR;
			else
				scx_usage_error(&extract_cmd, "unknown format '%s' (mitosis, pr)",
						arg);
			break;
		}
	}
	file = input_operand(&extract_cmd, argc, argv, file, "no input given (-i FILE)");
	x = prof_extract__new(&o, msg, sizeof(msg));
	if (!x)
		scx_usage_error(&extract_cmd, "%s", msg);
	fd = strcmp(file, "-") ? open(file, O_RDONLY | O_CLOEXEC) : STDIN_FILENO;
	if (fd < 0)
		scx_die(SCX_EXIT_FAIL, "cannot open '%s': %s", file, strerror(errno));
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			scx_die(SCX_EXIT_FAIL, "cannot read '%s': %s", file, strerror(errno));
		}
		if ((err = prof_extract__feed(x, buf, (size_t)n)))
			break;
	}
	if (!err)
		err = prof_extract__finish(x);
	if (err)
		scx_die(SCX_EXIT_FAIL, "%s: %s", file, prof_extract__error(x));
	if (fd != STDIN_FILENO)
		close(fd);
	if (scx_verbose) {
		prof_extract__summary(x, scx_verbose, &sum);
		fwrite(sum.data, 1, sum.len, stderr);
	}
	if (prof_extract__config(x, &cfg, &warn))
		scx_die(SCX_EXIT_FAIL, "internal error: cannot format the config");
	if (warn.len) {
		scx_buf_add(&warn, "", 1);
		scx_warn("warning: %s", warn.data);
	}
	if (prof_mitosis_validate(cfg.data, cfg.len, msg, sizeof(msg))) {
		if (o.format == PROF_FMT_MITOSIS)
			scx_die(SCX_EXIT_FAIL,
				"internal error: the config fails scx_mitosis' rules: "
				"%s",
				msg);
		scx_warn("note: scx_mitosis --cell-config does not accept the pr format (%s)", msg);
	}
	fwrite(cfg.data, 1, cfg.len, stdout);
	scx_buf_free(&cfg);
	scx_buf_free(&warn);
	scx_buf_free(&sum);
	prof_extract__free(x);
	return finish_stdout();
}

int main(int argc, char **argv)
{
	const char *arg;

	scx_set_prog("scx-prof");
	if (argc > 1 && argv[1][0] != '-') {
		if (!strcmp(argv[1], "record"))
			return cmd_record(argc - 1, argv + 1);
		if (!strcmp(argv[1], "process"))
			return cmd_process(argc - 1, argv + 1);
		if (!strcmp(argv[1], "extract"))
			return cmd_extract(argc - 1, argv + 1);
		scx_usage_error(&top_cmd, "unknown command '%s'", argv[1]);
	}
	while (scx_getopt(&top_cmd, argc, argv, &arg) != -1)
		;
	scx_usage(&top_cmd, STDERR_FILENO);
	return SCX_EXIT_USAGE;
}
