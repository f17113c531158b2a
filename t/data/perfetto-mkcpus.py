#!/usr/bin/env python3
# A Perfetto trace by hand for t/3004: SystemInfo.num_cpus = argv[1], then
# ftrace bundles of two sched_switch events on cpus 1, 1500 and 20000.
import sys
def v(n):
    out=b''
    while True:
        b=n&0x7f; n>>=7
        if n: out+=bytes([b|0x80])
        else: return out+bytes([b])
def f(num, payload):  # length-delimited
    return v(num<<3|2)+v(len(payload))+payload
def u(num, val):
    return v(num<<3)+v(val)
# sched_switch (FtraceEvent field 4): prev_comm 1, prev_pid 2, prev_prio 3, prev_state 4, next_comm 5, next_pid 6, next_prio 7
def switch(ts, prev, nxt):
    sw=f(1,b'a')+u(2,prev)+u(3,120)+u(4,1)+f(5,b'b')+u(6,nxt)+u(7,120)
    return u(1,ts)+u(2,prev)+f(4,sw)
def bundle(cpu, evs):
    return u(1,cpu)+b''.join(f(2,e) for e in evs)
pkts=[f(45,u(8,int(sys.argv[1])))]
for cpu in (1, 1500, 20000):
    pkts.append(f(1,bundle(cpu,[switch(1000+cpu,100,200),switch(2000+cpu,200,100)])))
sys.stdout.buffer.write(b''.join(f(1,p) for p in pkts))
