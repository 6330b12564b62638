#!/usr/bin/env bash
# Heap segments (HPSG) and thread status (THST) into ddmtui's models, against the anchors in
# ../shared/bench: Google's ddmlib 25.2.2 (DdmlibBench.java, Debian libandroid-ddms-java) and,
# for the heap, the C limit (c/hpsg_expand.c, "decode + state histogram"). Anchors and ddmtui
# run interleaved, round after round, in one invocation; each round gives ratios, and the
# script prints the median ratio. Absolute times on a shared machine mean little.
#
# Usage: scripts/bench-ddm.sh [ROUNDS] [DIR] [all|hpsg|thst]
#        (default 5 rounds, data in /tmp/ddmtui-bench, both pairs)
# Needs: go, python3, gcc, java 17 + javac, libandroid-ddms-java.
set -eu
. "$(dirname "$0")/lib/load.sh"
rounds=${1:-5}
dir=${2:-/tmp/ddmtui-bench}
what=${3:-all}
root=$(cd "$(dirname "$0")/.." && pwd)
bench=${DDMTUI_BENCH_ANCHORS:-$root/../shared/bench}
[ -d "$bench" ] || bench=/work/shared/bench
mkdir -p "$dir/build"
cd "$dir"
[ -f hpsg_512m.jdwp ] || python3 "$bench/gen_ddm_chunks.py" hpsg --heap-mib 512 --unit 8 --seed 1 -o hpsg_512m.jdwp
[ -f thst_10k.jdwp ] || python3 "$bench/gen_ddm_chunks.py" thst --chunks 10000 --threads 200 --seed 1 -o thst_10k.jdwp
jar() { dpkg -L "$1" | grep -E "/$2\$" | head -1; }
JARS=$(jar libandroid-ddms-java com.android.tools.ddms.ddmlib-25.2.2.jar):$(jar libandroid-tools-common-java com.android.tools.common.jar):$(jar libguava-java guava.jar)
javac -cp "$JARS" -d build "$bench/DdmlibBench.java"
gcc -O2 -Wall -o build/hpsg_expand "$bench/c/hpsg_expand.c"
(cd "$root" && go test -c -o "$dir/build/heap.test" ./heap && go test -c -o "$dir/build/ddm.test" ./ddm &&
	go test -c -o "$dir/build/monitor.test" ./monitor)
export DDMTUI_HPSG_STREAM="$dir/hpsg_512m.jdwp" DDMTUI_THST_STREAM="$dir/thst_10k.jdwp"
# the generator's last thread (gen_ddm_chunks.py thst --seed 1): both sides check it
export DDMTUI_THST_EXPECT="200 7000 7 11132 2864 1"

# median of the numbers on stdin
median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
# "min median" ms/op of a Go benchmark run with -count
gobench() {
	"$@" | awk '/ns\/op/ {for (i=1;i<=NF;i++) if ($(i+1)=="ns/op") print $i/1e6}' | sort -g > go.times
	echo "$(head -1 go.times) $(median < go.times)"
}
# "min median" from an anchor's "min A  median B  max C" line
minmed() { awk -v pat="$1" '$0 ~ pat {for (i=1;i<NF;i++) {if ($i=="min") a=$(i+1); if ($i=="median") b=$(i+1)}; print a, b; exit}'; }

load_report before
: > hpsg.ratios; : > hpsgc.ratios; : > thst.ratios; : > model.ratios; : > every.ratios
r=1
while [ "$r" -le "$rounds" ]; do
	if [ "$what" != thst ]; then
	d=$(java -Xms2g -Xmx2g -cp "$JARS:build" DdmlibBench hpsg hpsg_512m.jdwp 30 7 67108864 | minmed 'decode = ingest')
	c=$(build/hpsg_expand hpsg_512m.jdwp 7 | minmed 'decode \\+ state histogram +time')
	g=$(gobench build/heap.test -test.run '^$' -test.bench 'HeapStreamIngest$' -test.benchtime 10x -test.count 7)
	echo "$g $d" | awk '{print $1/$3, $2/$4}' >> hpsg.ratios
	echo "$g $c" | awk '{print $1/$3, $2/$4}' >> hpsgc.ratios
	echo "$r $g $d $c" | awk '{printf "round %d: HPSG min/median ms: ddmtui %.2f/%.2f, ddmlib %.2f/%.2f, C %.2f/%.2f\n", $1, $2, $3, $4, $5, $6, $7}'
	fi
	if [ "$what" != hpsg ]; then
	# THST: ddmlib's pass includes its thread model (ClientData/ThreadInfo,
	# listeners told). ddmtui: the decode alone (ddm/), then the session's reply
	# path into its thread table and the store (monitor/, BenchmarkTHSTIntoModel):
	# as it runs (the store's copy at most every 100 ms) and with a copy into the
	# store after every reply -- see docs/PERFORMANCE.md.
	td=$(java -Xms2g -Xmx2g -cp "$JARS:build" DdmlibBench thst thst_10k.jdwp 40 7 $DDMTUI_THST_EXPECT | minmed 'THST pass')
	tg=$(gobench build/ddm.test -test.run '^$' -test.bench 'THSTStreamDecode$' -test.benchtime 3x -test.count 7)
	tm=$(gobench build/monitor.test -test.run '^$' -test.bench 'THSTIntoModel/store-at-10Hz$' -test.benchtime 3x -test.count 7)
	te=$(gobench build/monitor.test -test.run '^$' -test.bench 'THSTIntoModel/store-every-reply$' -test.benchtime 3x -test.count 7)
	echo "$td $tg" | awk '{print $1/$3, $2/$4}' >> thst.ratios
	echo "$td $tm" | awk '{print $1/$3, $2/$4}' >> model.ratios
	echo "$td $te" | awk '{print $1/$3, $2/$4}' >> every.ratios
	echo "$r $tg $tm $te $td" | awk '{printf "round %d: THST min/median ms (2 M entries): ddmtui decode %.1f/%.1f, into the model %.1f/%.1f (store copy every reply %.1f/%.1f), ddmlib %.1f/%.1f\n", $1, $2, $3, $4, $5, $6, $7, $8, $9}'
	fi
	r=$((r + 1))
done
load_report after
if [ "$what" != thst ]; then
printf 'HPSG ddmtui/ddmlib time, median over rounds: of the mins %.3f, of the medians %.3f (target <= 0.5)\n' \
	"$(cut -d' ' -f1 hpsg.ratios | median)" "$(cut -d' ' -f2 hpsg.ratios | median)"
printf 'HPSG ddmtui/C-limit time, median over rounds: of the mins %.3f, of the medians %.3f (target <= 1.5)\n' \
	"$(cut -d' ' -f1 hpsgc.ratios | median)" "$(cut -d' ' -f2 hpsgc.ratios | median)"
fi
if [ "$what" != hpsg ]; then
printf 'THST ddmtui-decode/ddmlib entries per second, median over rounds: of the mins %.2fx, of the medians %.2fx\n' \
	"$(cut -d' ' -f1 thst.ratios | median)" "$(cut -d' ' -f2 thst.ratios | median)"
printf 'THST into the model (store at <= 10 Hz), ddmtui/ddmlib entries per second, median over rounds: of the mins %.2fx, of the medians %.2fx (target >= 3x)\n' \
	"$(cut -d' ' -f1 model.ratios | median)" "$(cut -d' ' -f2 model.ratios | median)"
printf 'THST into the model, store copy after every reply, ddmtui/ddmlib entries per second: of the mins %.2fx, of the medians %.2fx\n' \
	"$(cut -d' ' -f1 every.ratios | median)" "$(cut -d' ' -f2 every.ratios | median)"
fi
