# The evaluator of every lab's and exercise's self-checks (jq 1.6).
#
# A lab's checks are a table, labs/.../checks.jq, which includes this file
# and defines
#
#   def declared: N;    how many checks the table grades, whatever the facts
#   def checks:         the rows, each
#                       check(NAME; GOT; OP; EXPECTED; HINT)
#   def measured:       what the run measured for each prediction slot,
#                       and the band its prediction is scored in,
#                       m(KEY; VALUE; BAND) each (see "Predictions" below)
#
# GOT and EXPECTED are jq over the run's facts (the input, an object of
# fact name -> value), read with num(), str(), fact() and the helpers
# below, so a value from results.jsonl is data here, never program text.
# OP is one of == != < <= > >= or "has" (GOT, a string, contains EXPECTED);
# a check of several parts gives arrays: GOT [a, b], OP [">=", "=="] (or
# one OP for all), EXPECTED [x, y]; it passes when every part does.
#
# A row always gives a verdict: PASS, FAIL, or, when a fact it reads is
# absent, MISSING (naming the fact), or of the wrong type (or arithmetic
# on it fails, a division by zero), INVALID.  So
# a lab always grades `declared` checks: a fact removed or mangled costs
# the checks that read it, never their count.
#
# labs/lib/grade.sh's lab_grade runs evaluate.jq, which grades a table, on the
# run's files.

# what the check's line shows of a value
def shown:
	if type == "number" then
		# -0 (a negative value cut to whole units) is 0
		if . == 0 then "0" elif . == floor then tostring else (. * 100 | round) / 100 | tostring end
	elif type == "string" then tojson | if length > 60 then .[:57] + "...\"" else . end
	else tojson | if length > 60 then .[:57] + "..." else . end
	end;

# a report's cell: the value, "-" if a fact it needs is missing or invalid
def cell(f): try (f | shown) catch "-";

def _label($name; $key): if $key == "" then $name else "\($name) \($key)" end;

# Facts are written once.  A name recorded twice in one file is a forgery
# or a bug, and which record to believe cannot be told (a program graded
# as root could append a fact before or after the grader's own): its value
# becomes this marker, {(_recorded_key): N}, which fact() grades INVALID.
# A fact of the host's (host.jsonl, trusted) still replaces the guest's.
def _recorded_key: "pclab: recorded more than once";
def _recorded_twice: type == "object" and has(_recorded_key);

# fact(NAME; KEY): the value of fact NAME, or its field KEY (a path such as
# lat_us.p99; "" for the whole value); MISSING if there is none
def fact($name; $key):
	_label($name; $key) as $what
	| if has($name) | not then error({verdict: "MISSING", fact: $what}) else .[$name] end
	| if _recorded_twice then
		error({verdict: "INVALID", fact: $name, why: "recorded \(.[_recorded_key]) times (a fact is written once)"})
	else . end
	| reduce ($key | select(. != "") | split(".")[]) as $k (.;
		if type != "object" then error({verdict: "INVALID", fact: $what, why: "\(type), not an object"})
		elif has($k) then .[$k]
		else error({verdict: "MISSING", fact: $what})
		end)
	| if . == null then error({verdict: "INVALID", fact: $what, why: "null"}) else . end;
def fact($name): fact($name; "");

# num(NAME; KEY), str(NAME; KEY), bool(NAME; KEY): the same, of that type,
# else INVALID
def num($name; $key):
	fact($name; $key)
	| if type != "number" then
		error({verdict: "INVALID", fact: _label($name; $key), why: "\(type), not a number"})
	elif isinfinite or isnan then
		error({verdict: "INVALID", fact: _label($name; $key), why: "not a finite number"})
	else . end;
def num($name): num($name; "");
def str($name; $key):
	fact($name; $key)
	| if type == "string" then . else
		error({verdict: "INVALID", fact: _label($name; $key), why: "\(type), not a string"}) end;
def str($name): str($name; "");
def bool($name; $key):
	fact($name; $key)
	| if type == "boolean" then . else
		error({verdict: "INVALID", fact: _label($name; $key), why: "\(type), not true or false"}) end;

# helpers the tables share
# growth(STEP): the page cache's peak growth in iolab step STEP, MiB
def growth($step): (num($step; "cache_kib.peak") - num($step; "cache_kib.start")) / 1024 | trunc;
# percent(PART; WHOLE): PART as a percentage of WHOLE to one place (0 when
# WHOLE is 0)
def percent($part; $whole): if $whole == 0 then 0 else (1000 * $part / $whole | round) / 10 end;
# streams(STEP; KEY): KEY of every fact STEP.N (streams run together)
def streams($step; $key):
	(keys_unsorted | map(select(test("^" + ($step | gsub("\\."; "\\.")) + "\\.[0-9]+$")))) as $names
	| if $names == [] then error({verdict: "MISSING", fact: "\($step).N"}) else . end
	| [. as $facts | $names[] as $n | $facts | num($n; $key)];

def _holds($got; $op; $want):
	if $op == "has" then
		($got | type) == "string" and ($want | type) == "string" and ($got | contains($want))
	elif ($op | IN("==", "!=")) then
		if $op == "==" then $got == $want else $got != $want end
	elif ($got | type) != "number" or ($want | type) != "number" then
		error({verdict: "INVALID", fact: ($got | shown), why: "\($got | type), compared with \($op)"})
	elif $op == "<" then $got < $want
	elif $op == "<=" then $got <= $want
	elif $op == ">" then $got > $want
	elif $op == ">=" then $got >= $want
	else error("grading.jq: unknown operator \($op)")
	end;

# the first value of f, which must have one
def _one(f): [limit(1; f)] | if . == [] then error({verdict: "MISSING", fact: "a value"}) else .[0] end;

def check($name; got; op; expected; $hint):
	. as $facts
	| try (
		{got: _one(got), op: _one(op), expected: _one(expected)}
		| if (.got | type) == "array" then . else {got: [.got], op: [.op], expected: [.expected]} end
		| if (.op | type) == "string" then .op = [range(.got | length) as $_ | .op] else . end
		| if (.expected | length) != (.got | length) or (.op | length) != (.got | length) then
			error("check \($name): got, op and expected differ in length")
		else . end
		| . as $c
		| [range($c.got | length) | _holds($c.got[.]; $c.op[.]; $c.expected[.])] as $holds
		| {
			check: $name,
			got: (if ($c.got | length) == 1 then $c.got[0] else $c.got end),
			expected: (if ($c.expected | length) == 1 then $c.expected[0] else $c.expected end),
			value: ([range($c.got | length) | "\($c.got[.] | shown) \($c.op[.]) \($c.expected[.] | shown)"]
				| join(", ")),
			verdict: (if all($holds[]; .) then "PASS" else "FAIL" end)
		}
	) catch (
		# a fact missing or of the wrong type, or arithmetic its value
		# makes impossible (a division by zero)
		if type == "object" and has("verdict") then . else {verdict: "INVALID", fact: "a value", why: tostring} end
		| {check: $name, verdict: .verdict, fact: .fact,
			value: "\(.verdict) \(.fact)\(if .why then ": " + .why else "" end)"}
	)
	| .passed = (.verdict == "PASS") | .hint = $hint;

# facts_of(FILE; TEXT): TEXT's lines as facts {name, value}, and a problem
# for each line that is not one, naming FILE and the line
def facts_of($file; $text):
	$text | split("\n") | to_entries | map(
		(.key + 1) as $line
		| .value | rtrimstr("\r")
		| select(test("^[[:space:]]*$") | not)
		| (try [fromjson] catch null) as $parsed
		| ($parsed // [] | .[0]) as $record
		| if ($record | type) == "object" and ($record.name | type) == "string" and ($record | has("value")) then
			{fact: {name: $record.name, value: $record.value}}
		elif $parsed == null then {problem: "\($file) line \($line): not JSON"}
		else {problem: "\($file) line \($line): not a fact {\"name\": ..., \"value\": ...}"}
		end);

# once(FACTS): one file's FACTS, [{name, value}], as an object, name ->
# value, a name recorded more than once marked (see _recorded_key)
def once($facts):
	$facts | group_by(.name)
	| map({key: .[0].name, value: (if length == 1 then .[0].value else {(_recorded_key): length} end)})
	| from_entries;

# recorded_twice(FACTS): the names FACTS records more than once
def recorded_twice($facts): $facts | group_by(.name) | map(select(length > 1) | .[0].name);

# facts(TEXTS): the facts of the files' TEXTS as one object, name -> value,
# each file's written once, a later file's replacing an earlier's; lines
# that are no fact left out
def facts($texts): reduce ($texts[] | once([facts_of(""; .)[] | .fact // empty])) as $f ({}; . + $f);

# Predictions.  labs/LAB/predictions.txt lists the slots of the handout's
# questions, KEY|Q|QUESTION|UNIT a line (see there); the student's form,
# results/predictions/LAB.md, answers each with a line "KEY: NUMBER"; the
# table's measured gives, beside each KEY's value, the tolerance band its
# prediction is scored in:
#
#   m(KEY; VALUE; within(ABS; PCT))   |predicted - measured| at most ABS,
#                                     or PCT% of the measured value,
#                                     whichever is larger
#   m(KEY; VALUE; factor(F; ABS))     predicted within a factor F of the
#                                     measured value (both above 0), or
#                                     at most ABS from it
#
# A VALUE that cannot be had (a fact missing, or a run the slot is not
# for: only_when) is "-", and its prediction is not scored.
def within($abs; $pct): {abs: $abs, pct: $pct};
def factor($f; $abs): {factor: $f, abs: $abs};
# only_when(COND): the facts (the input), if COND holds for them (the run
# is the one a slot is for), else no value: m(KEY; only_when(...) | VALUE; BAND)
def only_when(cond): if cond then . else error({verdict: "MISSING", fact: "a run of this kind"}) end;
def m($key; value; $band):
	{($key): {
		shown: (try (value | shown) catch "-"),
		value: (try (value | if type == "number" and (isinfinite or isnan | not) then . else null end) catch null),
		band: $band
	}};

# band_text: a band as the report states it
def band_text:
	def n: shown;
	if .factor then "x/\(.factor | n)\(if .abs > 0 then " or ±\(.abs | n)" else "" end)"
	elif .pct > 0 and .abs > 0 then "±\(.abs | n) or ±\(.pct | n)%"
	elif .pct > 0 then "±\(.pct | n)%"
	else "±\(.abs | n)"
	end;
# in_band(PREDICTED; MEASURED): whether PREDICTED lies in the band (input),
# its edges in it (give or take a rounding error of the arithmetic)
def in_band($p; $v):
	def le($a; $b): $a <= $b + 1e-9 * ([($a | fabs), ($b | fabs), 1] | max);
	(($p - $v) | fabs) as $d
	| le($d; .abs)
	or (.pct and le($d; .pct / 100 * ($v | fabs)))
	or (.factor and $p > 0 and $v > 0 and le($p; $v * .factor) and le($v; $p * .factor));

# prediction_number: the number an answer starts with ("64", "~64 MiB",
# "2.5x", "1e3", "40%", "12."), else null: a number run into more digits
# or separators ("23,808") is none
def prediction_number:
	(capture("^\\s*[~≈]?\\s*(?<n>-?([0-9]+(\\.[0-9]+)?|\\.[0-9]+)([eE][-+]?[0-9]+)?)(?<rest>.*)$") // null) as $c
	| if $c == null or ($c.rest | test("^([0-9,]|\\.[0-9])")) then null
	else $c.n | tonumber | if isinfinite or isnan then null else . end
	end;

# answers(TEXT): the form's "KEY: answer" lines, {KEY: answer}, the first
# line of a KEY winning
def answers($text):
	reduce ($text | split("\n")[] | rtrimstr("\r")
		| capture("^(?<key>[a-z][a-z0-9_]*):[ \t]*(?<answer>.*)$") // empty) as $a
		({}; if has($a.key) then . else .[$a.key] = ($a.answer | sub("\\s+$"; "")) end);

# questions(TEXT): predictions.txt's slots, [{key, q, variant, question,
# unit}]: variant is the VAR=VALUE words after the question's number (a
# variant run's slot), [] for the lab's own run
def questions($text):
	[$text | split("\n")[] | select(test("^\\s*(#|$)") | not) | split("|")
		| (.[1] | split(" ") | map(select(. != ""))) as $q
		| {key: .[0], q: $q[0], variant: $q[1:], question: .[2], unit: .[3]}];

# score(MEASURED; ANSWERS): each measured slot, its answer, the number in
# it and whether that lies in the slot's band (null: not scored, for want
# of a number or a measured value)
def score($measured; $answers):
	[$measured | to_entries[] | .key as $key | .value as $m
		| ($answers[$key] // "") as $answer
		| ($answer | prediction_number) as $p
		| {key: $key, answer: $answer, predicted: $p, measured: $m.value, shown: $m.shown,
			band: $m.band, band_text: ($m.band | band_text),
			within: (if $p == null or $m.value == null then null else $m.band | in_band($p; $m.value) end)}];
