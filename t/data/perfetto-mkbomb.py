#!/usr/bin/env python3
# Perfetto decompression bombs for t/3005, made at test time (small files
# that inflate to a lot).  What they inflate to is a valid trace: TracePackets
# that hold only a timestamp, 4 bytes each, so a reader that inflated them
# whole would find nothing wrong with them.
#   pattern MIB        the uncompressed trace, MIB MiB of it
#   gz MIB             whole-file gzip, one 16 MiB member repeated
#   wrap FIELD         stdin as one packet's field FIELD (133: zstd_compressed_packets)
#   wrap-zlib          stdin compressed with zlib as one packet's compressed_packets
import gzip, sys, zlib
def v(n):
    out=b''
    while True:
        b=n&0x7f; n>>=7
        if n: out+=bytes([b|0x80])
        else: return out+bytes([b])
def f(num, payload):  # length-delimited
    return v(num<<3|2)+v(len(payload))+payload
def pattern(mib):
    return f(1, v(8<<3)+v(1))*(mib<<18)   # 4-byte packets, 2^18 of them per MiB
out=sys.stdout.buffer
kind=sys.argv[1]
if kind == 'pattern':
    out.write(pattern(int(sys.argv[2])))
elif kind == 'gz':
    member=gzip.compress(pattern(16), 9)
    out.write(member*(int(sys.argv[2])//16))
elif kind == 'wrap-zlib':
    out.write(f(1, f(50, zlib.compress(sys.stdin.buffer.read(), 9))))
elif kind == 'wrap':
    out.write(f(1, f(int(sys.argv[2]), sys.stdin.buffer.read())))
