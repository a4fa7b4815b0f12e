# shellcheck shell=bash
# Hand-in archives made by hand, as a forger would make them, for the tests
# of labs/grade-submission (source after tap.sh):
#
#   handin_manifest DIR        DIR/handin/MANIFEST.sha256 written again, for
#                              the files DIR/handin holds now
#   handin_tar DIR TAR [TAR-OPTION...]
#                              DIR/handin archived as TAR, as make handin
#                              archives it

handin_manifest() {
	(cd "$1/handin" && find . -type f ! -name MANIFEST.sha256 -printf '%P\n' | LC_ALL=C sort |
		xargs -r -d '\n' sha256sum --) >"$1/MANIFEST.sha256"
	mv -- "$1/MANIFEST.sha256" "$1/handin/"
}

handin_tar() {
	local dir=$1 tar=$2
	shift 2
	tar -cf "$tar" -C "$dir" --sort=name --owner=0 --group=0 --numeric-owner "$@" handin
}
