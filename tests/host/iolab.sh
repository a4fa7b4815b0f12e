#!/bin/sh
# iolab's option parsing, latency statistics and /proc parsing, on the host
# (the unit-test program is built by make check).
top=$(cd "$(dirname "$0")/../.." && pwd)
exec "$top/build/host/iolab-unit"
