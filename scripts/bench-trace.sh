#!/usr/bin/env bash
# bench-trace.sh: `ddmtui trace FILE --json` against AOSP dmtracedump (its default text
# profile) on the anchor trace of ../shared/bench: gen_dmtrace.py, 10 M records, 24 threads,
# 5000 methods, depth 48, version 3 dual clock (140 MB). The two tools run alternately, round
# after round (A B, then B A, ...) under /usr/bin/time; each round gives a wall-time ratio and
# a peak-RSS ratio, and the script prints the medians. It also checks that the numbers agree:
# dmtracedump's "Total cycles" and its ten largest exclusive times against ddmtui's JSON.
# Each round also runs `ddmtui trace FILE --json --tree --bottom-up --tree-depth 1`: the profile
# with every call tree built (each thread's top-down tree while profiling, and the bottom-up
# tree of each thread and of all threads merged, to their first level, as the viewer opens
# them) and their first level printed; its wall time against dmtracedump's (target <= 0.3)
# and its peak RSS against plain --json's (the trees' memory) are the call-tree figures, with
# its CPU time (user+sys) against dmtracedump's and over plain --json's, which a loaded
# machine changes less than the wall times. And each round runs `ddmtui trace FILE --tree --json`
# as a user would (issue 39 #2: the nodes under 0.1% folded into "(other)"): its wall time
# against dmtracedump's (target <= 0.3) and its output's size (target <= 5 MB).
#
# BUSY=1 runs it all with a CPU burner on every core but one (scripts/lib/load.sh); the load
# is printed before and after either way.
#
# Usage: scripts/bench-trace.sh [ROUNDS] [DIR]   (default 5 rounds, data in /tmp/ddmtui-bench)
#        DMTRACEDUMP=/path/to/dmtracedump scripts/bench-trace.sh
set -euo pipefail
. "$(dirname "$0")/lib/load.sh"
root=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-5}
dir=${2:-/tmp/ddmtui-bench}
bench=${DDMTUI_BENCH_ANCHORS:-$root/../shared/bench}
[ -d "$bench" ] || bench=/work/shared/bench
dmtracedump=${DMTRACEDUMP:-$(command -v dmtracedump || true)}
[ -n "$dmtracedump" ] || { echo "bench-trace: dmtracedump not found (Debian package dmtracedump)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench-trace: /usr/bin/time not found (Debian package time)" >&2; exit 1; }

mkdir -p "$dir/build"
cd "$dir"
[ -f t10m.trace ] || python3 "$bench/gen_dmtrace.py" --records 10000000 --threads 24 --methods 5000 --depth 48 --seed 1 -o t10m.trace
(cd "$root" && go build -o "$dir/build/ddmtui" .)

# Numbers first: the same profile.
"$dmtracedump" t10m.trace > dmtracedump.txt
build/ddmtui trace t10m.trace --json > ddmtui.json
python3 - <<'EOF'
import json, re, sys
txt = open("dmtracedump.txt").read()
total = int(re.search(r"Total cycles: (\d+)", txt).group(1))
sec = txt.split("sorted by exclusive time.")[1]
excl = [int(m.group(1)) for m in re.finditer(r"^\s+(\d+)\s+[\d.]+\s+[\d.]+\s+\[", sec, re.M)][:10]
doc = json.load(open("ddmtui.json"))
ours = sorted((m.get("exclusive_cpu_usec", 0) for m in doc["methods"] if m["id"] >= 0), reverse=True)[:10]
ok = doc["total_cpu_usec"] == total and ours == excl
print(f"numbers: total {doc['total_cpu_usec']} vs dmtracedump {total}; top-10 exclusive equal: {ours == excl}")
sys.exit(0 if ok else 1)
EOF

median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
run() { /usr/bin/time -f "%e %M %U %S" "$@" 2>&1 >/dev/null | tail -1; }

bench_begin
: > wall.ratios; : > rss.ratios; : > cpu.ratios; : > tree.ratios; : > jtree.ratios; : > jtree.mb; : > tree.extra; : > tree.cpu; : > tree.cpuextra
for ((r = 1; r <= rounds; r++)); do
	if ((r % 2)); then
		read -r dw dm du ds < <(run "$dmtracedump" t10m.trace)
		read -r ow om ou os < <(run build/ddmtui trace t10m.trace --json)
	else
		read -r ow om ou os < <(run build/ddmtui trace t10m.trace --json)
		read -r dw dm du ds < <(run "$dmtracedump" t10m.trace)
	fi
	read -r tw tm tu ts < <(run build/ddmtui trace t10m.trace --json --tree --bottom-up --tree-depth 1)
	read -r jw jm ju js < <(run sh -c 'build/ddmtui trace t10m.trace --tree --json 2>/dev/null > tree.json')
	echo "$jw $dw" | awk '{print $1/$2}' >> jtree.ratios
	echo "$(stat -c %s tree.json)" | awk '{print $1/1e6}' >> jtree.mb
	echo "$tw $dw" | awk '{print $1/$2}' >> tree.ratios
	echo "$tm $om" | awk '{print ($1-$2)/1024}' >> tree.extra
	echo "$tu $ts $du $ds" | awk '{print ($1+$2)/($3+$4)}' >> tree.cpu
	echo "$tu $ts $ou $os" | awk '{print ($1+$2)-($3+$4)}' >> tree.cpuextra
	echo "$ow $dw" | awk '{print $1/$2}' >> wall.ratios
	echo "$om $dm" | awk '{print $1/$2}' >> rss.ratios
	echo "$ou $os $du $ds" | awk '{print ($1+$2)/($3+$4)}' >> cpu.ratios
	printf 'round %d: dmtracedump %s s (user %s sys %s) %s KiB | ddmtui %s s (user %s sys %s) %s KiB\n' \
		"$r" "$dw" "$du" "$ds" "$dm" "$ow" "$ou" "$os" "$om"
	printf '         ddmtui with call trees %s s (user %s sys %s) %s KiB\n' "$tw" "$tu" "$ts" "$tm"
	printf '         ddmtui --tree --json %s s (user %s sys %s) %s KiB, %s bytes of JSON\n' "$jw" "$ju" "$js" "$jm" "$(stat -c %s tree.json)"
done
bench_end
printf 'ddmtui/dmtracedump wall time: median %.3f (target <= 0.15)\n' "$(median < wall.ratios)"
printf 'ddmtui/dmtracedump peak RSS:  median %.3f (target <= 0.4)\n' "$(median < rss.ratios)"
printf 'ddmtui/dmtracedump CPU time (user+sys, both cores): median %.3f\n' "$(median < cpu.ratios)"
printf 'ddmtui with call trees/dmtracedump wall time: median %.3f (target <= 0.3)\n' "$(median < tree.ratios)"
printf 'ddmtui with call trees/dmtracedump CPU time (user+sys): median %.3f\n' "$(median < tree.cpu)"
printf 'call trees: CPU time (user+sys) over plain --json: median %.2f s\n' "$(median < tree.cpuextra)"
printf 'call trees: peak RSS over plain --json: median %.1f MiB (target <= 64)\n' "$(median < tree.extra)"
printf 'ddmtui --tree --json/dmtracedump wall time: median %.3f (target <= 0.3); output %.2f MB (target <= 5)\n' "$(median < jtree.ratios)" "$(median < jtree.mb)"
