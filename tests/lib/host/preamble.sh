# shellcheck shell=bash
# The preamble of every host test (sourced by tests/host/*.sh): the TAP
# helpers, $top (the checkout) and $tmp (a scratch directory, removed at
# exit; a test that traps EXIT itself removes it there too).
# shellcheck source=../both/tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../both/tap.sh"
# shellcheck disable=SC2034 # read by the tests that source this
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
