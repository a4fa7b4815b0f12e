#!/bin/sh
# lib/'s unit tests on the host: size, /proc and kswapd parsing, CSV and
# JSON writing (the unit-test program is built by make check).
top=$(cd "$(dirname "$0")/../.." && pwd)
exec "$top/build/host/lib-unit"
