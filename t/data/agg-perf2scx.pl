#!/usr/bin/perl
# Convert `perf script --ns` output of sched tracepoints into scx-tools NDJSON
# events, so scx-agg and `perf sched latency` can be compared on the same
# events (t/2002-agg-perf.t, bench/agg.sh).  Only the fields scx-agg uses.
# With --perf-r-plus-sleeps, a switch-out in state R+ (preempted) becomes S:
# perf 6.1's `perf sched latency` reads the kernel's R+ (0x100, reported since
# 4.14) as a sleep, so it leaves the wait after a preemption out of its
# delays; the option gives scx-agg the same view for an exact comparison.
use strict;
use warnings;

#
# With --runtime-first=FILE, the pids whose first event is a
# sched_stat_runtime (a task perf never saw switch, wake or migrate before
# it was charged runtime) go to FILE, one a line: `perf sched latency` then
# treats the task as runnable since that record and times its first wait
# from it, a wait no scheduler event marks, so agg-perfcmp.pl --skip leaves
# those tasks out.
my ($rplus_sleeps, $runtime_first) = (0, undef);
for (@ARGV) {
	$rplus_sleeps = 1 if $_ eq '--perf-r-plus-sleeps';
	$runtime_first = $1 if /^--runtime-first=(.*)$/;
}
my (%seen, @first_by_runtime);

my %state = (R => 0, S => 1, D => 2, T => 4, t => 8, X => 16, Z => 32, P => 64, I => 128);

sub st {
	my ($s) = @_;
	return ($rplus_sleeps ? 1 : 256) if $s =~ /\+/;
	my $v = 0;
	for my $c (split //, $s) {
		$v |= $state{$c} // 0;
	}
	return $v;
}

sub js {
	my ($s) = @_;
	$s =~ s/([\\"])/\\$1/g;
	$s =~ s/([\x00-\x1f])/sprintf("\\u%04x", ord($1))/ge;
	return "\"$s\"";
}

while (my $l = <STDIN>) {
	next unless $l =~ /\s(-?\d+)\s+\[(\d+)\]\s+(\d+)\.(\d+):\s+sched:(\w+):\s+(.*)$/;
	my ($cpu, $ts, $ev, $rest) = ($2 + 0, $3 * 1000000000 + $4 * 10 ** (9 - length($4)), $5, $6);
	if ($ev eq 'sched_stat_runtime') {
		push @first_by_runtime, $1 if $rest =~ /\bpid=(\d+) / && !$seen{$1}++;
	} elsif ($ev eq 'sched_switch') {
		next unless $rest =~ /^prev_comm=(.*) prev_pid=(\d+) prev_prio=(-?\d+) prev_state=(\S+) ==> next_comm=(.*) next_pid=(\d+) next_prio=(-?\d+)/;
		$seen{$2} = $seen{$6} = 1;
		printf "{\"ts\":%d,\"cpu\":%d,\"type\":\"sched_switch\",\"prev_pid\":%d,\"prev_tgid\":0,\"prev_comm\":%s,\"prev_prio\":%d,\"prev_state\":%d,\"next_pid\":%d,\"next_tgid\":0,\"next_comm\":%s,\"next_prio\":%d}\n",
			$ts, $cpu, $2, js($1), $3, st($4), $6, js($5), $7;
	} elsif ($ev =~ /^sched_(waking|wakeup|wakeup_new)$/) {
		next unless $rest =~ /^comm=(.*) pid=(\d+) prio=(-?\d+)(?: success=\d+)? target_cpu=(\d+)/;
		$seen{$2} = 1;
		printf "{\"ts\":%d,\"cpu\":%d,\"type\":\"%s\",\"pid\":%d,\"tgid\":0,\"comm\":%s,\"prio\":%d,\"target_cpu\":%d,\"waker_pid\":0,\"waker_tgid\":0}\n",
			$ts, $cpu, $ev, $2, js($1), $3, $4;
	} elsif ($ev eq 'sched_migrate_task') {
		next unless $rest =~ /^comm=(.*) pid=(\d+) prio=(-?\d+) orig_cpu=(\d+) dest_cpu=(\d+)/;
		$seen{$2} = 1;
		printf "{\"ts\":%d,\"cpu\":%d,\"type\":\"sched_migrate_task\",\"pid\":%d,\"tgid\":0,\"comm\":%s,\"prio\":%d,\"orig_cpu\":%d,\"dest_cpu\":%d}\n",
			$ts, $cpu, $2, js($1), $3, $4, $5;
	}
}
if (defined $runtime_first) {
	open(my $o, '>', $runtime_first) or die "$runtime_first: $!";
	print $o "$_\n" for @first_by_runtime;
	close $o;
}
