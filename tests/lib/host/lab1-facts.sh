# shellcheck shell=bash
# Lab 1's facts, as its guest writes them, for host tests that grade a run
# without a boot (tests/host/grade.sh, predictions.sh, student-release.sh).
#
#   lab1_facts [FILE-MIB [WARM-READ-KIB]]
#       the facts of a run on a FILE-MIB (64) MiB file whose warm read took
#       WARM-READ-KIB (0: all from the cache) from the disk, on standard output
lab1_facts() {
	cat <<-JSON
	{"name": "file-mib", "value": ${1:-64}}
	{"name": "baseline", "value": {"cached_kib": 10000, "pgpgin_kib": 0, "seconds": 0}}
	{"name": "cold_read", "value": {"cached_kib": 76000, "pgpgin_kib": 65536, "seconds": 0.5}}
	{"name": "warm_read", "value": {"cached_kib": 76000, "pgpgin_kib": ${2:-0}, "seconds": 0.1}}
	{"name": "drop_caches", "value": {"cached_kib": 10100, "pgpgin_kib": 0, "seconds": 0.2}}
	{"name": "partial-map", "value": "########........########........"}
	{"name": "partial-pcviz", "value": {"pages": 16384, "cached": 8704}}
	{"name": "run", "value": {"mem_mib": 256, "data_mib": 512, "seconds": 3, "fs": "ext4"}}
	JSON
}
