#!/bin/bash
# pcviz's model, parsers, residency (cachestat on files in a scratch
# directory), batch formatting and options: the C unit tests.  No tracing.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=$top/build/host/pcviz-tests/test-model
if [ ! -x "$bin" ]; then
	echo "1..1"
	echo "not ok 1 - $bin is built (make pcviz)"
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin" "$tmp"
