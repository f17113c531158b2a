#!/usr/bin/perl
# Compare `perf sched latency -p` (file 1) with scx-agg --by pid NDJSON
# (file 2), task by task.  perf's Switches are the sched-ins that ended a wait
# (plus one for a task first seen switching in), its avg is total delay /
# Switches and its max is the longest wait: scx-agg's rq_delay count, sum
# and max.  Tolerances: switches within 1, max within 2us, total delay within
# 1% or 2us per switch (perf prints ms with 3 decimals).  Prints one line per
# mismatch and "compared N" at the end.
use strict;
use warnings;

# --live: two captures of one run (different clocks, perf may drop events
# under load): max within 1% + 20us, total within 2% + 20us per switch,
# and at most 10% of the tasks may differ.
my $live = @ARGV && $ARGV[0] eq '--live' ? shift @ARGV : 0;
my ($perf, $agg) = @ARGV;
my ($tmax, $tsum) = $live ? (20000, 20000) : (2000, 2000);
my ($rmax, $rsum) = $live ? (0.01, 0.02) : (0, 0.01);
my %p;
open(my $f, '<', $perf) or die "$perf: $!";
while (<$f>) {
	next unless /^\s*(.+):(\d+)\s*\|\s*([\d.]+) ms\s*\|\s*(\d+)\s*\|\s*avg:\s*([\d.]+) ms\s*\|\s*max:\s*([\d.]+) ms/;
	$p{$2} = { comm => $1, sw => $4, avg => $5 * 1e6, max => $6 * 1e6 };
}
close $f;
open(my $g, '<', $agg) or die "$agg: $!";
my $line = <$g>;
close $g;
my ($n, $bad, $badtasks) = (0, 0, 0);
while ($line =~ /\{"pid":(\d+),.*?"rq_delay":\{"count":(\d+)(?:,"min":\d+,"avg":([\d.e+]+),"p50":\d+,"p90":\d+,"p99":\d+,"p999":\d+,"max":(\d+))?\}/g) {
	my ($pid, $cnt, $avg, $max) = ($1, $2, $3 // 0, $4 // 0);
	next unless exists $p{$pid};
	my $q = $p{$pid};
	$n++;
	my $was = $bad;
	my $sum = $avg * $cnt;
	my $psum = $q->{avg} * $q->{sw};
	if (abs($q->{sw} - $cnt) > 1) {
		print "pid $pid: switches perf $q->{sw} scx-agg $cnt\n"; $bad++;
	}
	if (abs($q->{max} - $max) > $rmax * $q->{max} + $tmax) {
		print "pid $pid: max perf $q->{max} scx-agg $max\n"; $bad++;
	}
	if (abs($psum - $sum) > $rsum * $psum + $tsum * ($q->{sw} + 1)) {
		print "pid $pid: total delay perf $psum scx-agg $sum\n"; $bad++;
	}
	$badtasks++ if $bad > $was;
}
print "compared $n, differing $badtasks\n";
exit($live ? ($badtasks * 10 > $n ? 1 : 0) : ($bad ? 1 : 0));
