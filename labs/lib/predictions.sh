# shellcheck shell=bash
# shellcheck disable=SC2154 # top, results_root, out, lab_tmp: lib/host.sh's; mem_mib: vm.sh's
# The student's predictions, before the run and scored after it, and
# the form for their answers to the questions after the run.
#
# LAB_HANDOUT names the handout's directory under labs/, whose
# predictions.txt and ANSWERS.md go with the run (default: LAB; an exercise
# that is a lab's capstone names that lab).
# A lab with prediction slots (labs/LAB_HANDOUT/predictions.txt) boots only
# once the student's form has a number in each slot of the run
# (predictions_gate, below); PREDICT=skip boots without them (make check).

# Predictions, before the run.  labs/LAB/predictions.txt has a slot
# KEY|Q|QUESTION|UNIT per number the handout's questions ask for; the
# student answers in results/predictions/LAB.md, a line "KEY: NUMBER" a
# slot and their reasoning under each question's "why:".  Unless
# PREDICT=skip, a boot waits until every slot of this run has a number
# (predictions_gate); the form as it was then is kept with the run
# ($out/predictions.md), and grading (again) scores that copy, never a
# form written after the run: the evaluator sets each number beside what
# the lab's table measured for KEY (m(KEY; VALUE; BAND)) and says whether
# it lies in BAND.
handout=${LAB_HANDOUT:-$LAB}
questions=$top/labs/$handout/predictions.txt
predictions=$results_root/predictions/$handout.md
predictions_kept=$lab_tmp/predictions.md

# predictions_jq PROGRAM [OPTION...]: jq with grading.jq's helpers, the
# slots as $questions and the student's form as $form ("" if none)
predictions_jq() {
	local program=$1 form=/dev/null
	shift
	! guest_file "$predictions" 2>/dev/null || form=$predictions
	jq -rn -L "$top/labs/grading" --rawfile questions "$questions" --rawfile form "$form" "$@" \
		"include \"grading\"; $program"
}

# predict_section: the title of the handout's section of predictions
predict_section() {
	sed -n 's/^## \(Before you .*predict\)$/\1/p' "$top/labs/$handout/README.md" | head -n 1
}

predictions_template() {
	[ ! -e "$predictions" ] || return 0
	mkdir -p "$(dirname "$predictions")"
	# shellcheck disable=SC2016 # jq's variables
	predictions_jq '"# \($lab): your predictions (labs/\($lab)/README.md,",
		"# \"\($section)\").  After each KEY: a number, in the unit",
		"# that follows the question (a unit or a word may follow it: \"64 MiB\",",
		"# \"~2x\"); under why: your reasoning, as many lines as you like.",
		"# \($run) runs once every slot of its run has a number, prints",
		"# each beside what it measured and scores it against a tolerance band.",
		"# A question marked \"before its run\" is for a variant run: its slots",
		"# are needed when you run that.  Lines starting with # are ignored.",
		(questions($questions) | group_by(.q | tonumber)[] |
			"", "## Question \(.[0].q)\(if .[0].variant != [] then " (before its run: \($run) \(.[0].variant | join(" ")))" else "" end)",
			(.[] | "> \(.question) (\(.unit))", "\(.key): "),
			"why: ")' --arg lab "$handout" --arg run "${LAB_RUN:-make $LAB}" --arg section "$(predict_section)" \
		>"$predictions"
}

# predictions_gate: unless PREDICT=skip, no boot before the student's
# predictions: write the form if there is none, and stop (status 1),
# naming the slots of this run that have no number yet
predictions_gate() {
	case "${PREDICT:-}" in
	skip) return 0 ;;
	'') ;;
	*) echo "$LAB: PREDICT takes one value, skip (run without predictions), not '$PREDICT'" >&2; exit 2 ;;
	esac
	[ -r "$questions" ] || return 0
	local fresh=0 missing
	[ -e "$predictions" ] || fresh=1
	predictions_template
	guest_file "$predictions" || exit 1
	# the slots of this run: the lab's own, and those of a variant run
	# whose variables all have its values here (MEM: the guest's MiB)
	# shellcheck disable=SC2016 # jq's variables
	missing=$(predictions_jq 'answers($form) as $a | questions($questions)[]
		| select(all(.variant[]; capture("^(?<var>[^=]+)=(?<value>.*)$") |
			.value == (if .var == "MEM" then $mem else $ENV[.var] // "" end)))
		| select($a[.key] // "" | prediction_number == null)
		| "  question \(.q), \(.key) (\(.unit))\(if ($a[.key] // "") == "" then "" else ", not a number: \($a[.key] | .[:40] | @json)" end)",
			"      \(.question)"' \
		--arg mem "$mem_mib")
	[ -n "$missing" ] || return 0
	echo "$LAB: predict first, then run.$([ "$fresh" = 0 ] || echo " The form is written:")"
	echo "  Write your predictions in $predictions: the questions are those"
	echo "  of labs/$handout/README.md, \"$(predict_section)\"; after each KEY: a number, and"
	echo "  under each question's why: your reasoning.  Without a number yet:"
	echo "$missing"
	echo "  Then ${LAB_RUN:-make $LAB} again: it runs, and scores each prediction against what it measured."
	echo "  (PREDICT=skip runs it without them: nothing is scored.)"
	exit 1
}

# predictions_keep: after the boot, the form as it was before it goes
# with the run, replacing whatever the guest left under that name
predictions_keep() {
	if [ -e "$predictions_kept" ]; then
		replace_file "$out/predictions.md" <"$predictions_kept"
	elif [ -e "$out/predictions.md" ] || [ -L "$out/predictions.md" ]; then
		rm -rf -- "$out/predictions.md"
	fi
}

# predictions_report GRADED: the predictions kept with the run beside what
# it measured, each scored in its band (the evaluator's output GRADED);
# their verdicts in $out/predictions.jsonl
predictions_report() {
	[ -r "$questions" ] || return 0
	jq -c '.predictions[]' "$1" | replace_file "$out/predictions.jsonl"
	echo
	if [ ! -f "$out/predictions.md" ] || [ -L "$out/predictions.md" ]; then
		echo "$LAB: no predictions were kept with this run (it ran with PREDICT=skip and no form):"
		echo "  with $predictions filled in, ${LAB_RUN:-make $LAB} scores them"
		return 0
	fi
	echo "$LAB: your predictions, made before this run ($out/predictions.md), and what it measured"
	# shellcheck disable=SC2016 # jq's variables
	jq -r -L "$top/labs/grading" --rawfile questions "$questions" 'include "grading";
		(questions($questions) | map({key: .key, value: .}) | from_entries) as $q
		| ["  Q", "slot", "yours", "measured", "band", ""],
		(.predictions[] | ($q[.key] // {q: "?", unit: ""}) as $s
			| ["  \($s.q)", .key, (if .answer == "" then "-" else .answer | .[:12] end), (if .shown == "-" then "-" else "\(.shown) \($s.unit)" end), .band_text,
				(if .within == true then "within" elif .within == false then "outside"
				elif .shown == "-" then "not measured in this run" else "no number" end)])
		| @tsv' "$1" | awk -F '\t' '{ printf "%-4s %-36s %12s %16s  %-16s %s\n", $1, $2, $3, $4, $5, $6 }'
	jq -r '.predictions | [.[] | select(.within != null)] as $scored
		| "  your predictions: \([$scored[] | select(.within)] | length) of \($scored | length) within band" +
		([(([.[] | select(.within == null and .shown != "-")] | length) | select(. > 0) | "\(.) without a number"),
			(([.[] | select(.shown == "-")] | length) | select(. > 0) | "\(.) not measured in this run")]
			| if . == [] then "" else " (" + join("; ") + ")" end)' "$1"
	echo "  (the reasoning: labs/$handout/ANSWERS.md, after you have made up your mind)"
}

# answers_template: after a run, the student's file of written answers,
# results/answers/LAB.md, if there is none: a heading for each question
# of the handout's "Questions after the run", and one for the predictions
# the run did not confirm (make handin bundles it)
answers=$results_root/answers/$handout.md
answers_template() {
	local readme=$top/labs/$handout/README.md
	[ -r "$readme" ] && grep -q '^## Questions after the run' "$readme" || return 0
	if [ ! -e "$answers" ] && [ ! -L "$answers" ]; then
		mkdir -p "$(dirname "$answers")"
		{
			echo "# $handout: your answers to the questions after the run (labs/$handout/README.md,"
			echo "# \"Questions after the run\"), under each heading; make handin bundles this file."
			echo
			echo "## The predictions the run did not confirm: the mechanism each left out"
			echo
			awk 'function end() { if (q) printf "\n"; q = 0 }
				/^## / { end(); inside = ($0 == "## Questions after the run"); next }
				!inside { next }
				/^[0-9]+\. / { end(); q = 1; printf "\n## Question %s\n> %s\n", $1 + 0, substr($0, length($1) + 2); next }
				q && /^   / { sub(/^ +/, ""); printf "> %s\n", $0; next }
				{ end() }
				END { end() }' "$readme"
		} >"$answers"
	fi
	echo "  your answers to the questions after the run: $answers"
}
