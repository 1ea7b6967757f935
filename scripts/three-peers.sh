#!/usr/bin/env bash
# Three Peerdex peers on one machine sharing one index, from the peer jar alone:
#   1. starts peers A, B, C (own data dirs and ports; B and C join A), and a small local site (the Tarn corpus
#      committed under node/src/test/resources/corpus/tarn, served by python3 on 127.0.0.1);
#   2. crawls the site on A and searches it from C (which crawled nothing);
#   3. kills B with kill -9, searches again from C; restarts B and waits until every posting has R copies again.
# Usage: scripts/three-peers.sh [WORKDIR]   (leaves the peers running only with KEEP=1)
# TRANSPORT=peer (default: the open network's peer protocol, as the README starts peers) or TRANSPORT=cluster
# (Pekko Cluster, for peers that trust each other).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="${1:-$(mktemp -d /tmp/peerdex-three.XXXXXX)}"
jar="$here/node/target/peerdex-node.jar"
base=$((20000 + RANDOM % 20000))
site_port=$((base + 9))
pids=()

log() { printf '[three-peers] %s\n' "$*"; }
cleanup() {
  if [ "${KEEP:-0}" != 1 ]; then
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
  fi
}
trap cleanup EXIT
trap "exit 143" INT TERM

if [ "${PEERDEX_NO_BUILD:-0}" != 1 ]; then
  # the launcher's own staleness rule builds the jar when needed; --help then only prints and exits
  "$here/peerdex" --help >/dev/null
fi

transport="${TRANSPORT:-peer}"
start_peer() { # name http-port peer-port [seed]
  local name=$1 http=$2 port=$3 seed=${4:-}
  mkdir -p "$work/$name"
  # the crawler may fetch loopback only because this demo's site is on 127.0.0.1
  java -Xmx768m -Dpeerdex.crawler.allow-loopback=true -jar "$jar" --data "$work/$name/data" \
    --http "127.0.0.1:$http" "--$transport" "127.0.0.1:$port" ${seed:+--seed "$seed"} >"$work/$name/peer.log" 2>&1 &
  echo $!
}

wait_for() { # seconds description command...
  local secs=$1 what=$2; shift 2
  local end=$((SECONDS + secs))
  until "$@" >/dev/null 2>&1; do
    if [ $SECONDS -ge $end ]; then log "timed out waiting for $what"; exit 1; fi
    sleep 1
  done
}

json() { python3 -c "import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))" "$1"; }

mkdir -p "$work"
log "work dir $work, transport $transport"
python3 -m http.server "$site_port" --bind 127.0.0.1 --directory "$here/node/src/test/resources/corpus/tarn" \
  >"$work/site.log" 2>&1 &
pids+=($!)

A=$((base)); B=$((base + 1)); C=$((base + 2))
pids+=("$(start_peer a $A $((base + 100)))")
wait_for 60 "peer A" curl -fsS "http://127.0.0.1:$A/api/status"
pid_b="$(start_peer b $B $((base + 101)) "127.0.0.1:$((base + 100))")"; pids+=("$pid_b")
pids+=("$(start_peer c $C $((base + 102)) "127.0.0.1:$((base + 100))")")
peers_are() { [ "$(curl -fsS "http://127.0.0.1:$C/api/peers" | json 'len(d["peers"])')" = "$1" ]; }
wait_for 90 "three peers in the ring" peers_are 3
log "three peers joined: $(curl -fsS "http://127.0.0.1:$C/api/peers" | json '[p["peerId"] for p in d["peers"]]')"

crawl_id="$(curl -fsS -X POST -H 'Content-Type: application/json' \
  -d "{\"url\":\"http://127.0.0.1:$site_port/index.html\",\"depth\":3,\"range\":\"site\",\"minDelayMs\":0}" \
  "http://127.0.0.1:$A/api/crawl" | json 'd["id"]')"
crawl_done() { [ "$(curl -fsS "http://127.0.0.1:$A/api/crawl/$crawl_id" | json 'd["state"]')" = finished ]; }
wait_for 120 "the crawl" crawl_done
log "crawl on A: $(curl -fsS "http://127.0.0.1:$A/api/crawl/$crawl_id" | json '{k: d[k] for k in ("fetched","indexed","errors")}')"

found() { [ "$(curl -fsS "http://127.0.0.1:$C/api/search?q=compaction&resource=global" | json 'len(d["results"])')" -gt 0 ]; }
wait_for 60 "C to find what A crawled" found
log "C finds: $(curl -fsS "http://127.0.0.1:$C/api/search?q=compaction&resource=global" | json '[r["url"] for r in d["results"]][:3]')"
count() { curl -fsS "http://127.0.0.1:$1/api/index/word/$2" | json 'd["count"]'; }
# with three peers and R = 3 every peer holds every posting: compare each word's postings on A, B and C
all_copies() { local n; n="$(count $A "$1")"; [ "$n" -gt 0 ] && [ "$(count $B "$1")" = "$n" ] && [ "$(count $C "$1")" = "$n" ]; }
wait_for 180 "R copies of what A crawled" all_copies compaction
log "postings of 'compaction' on A/B/C: $(count $A compaction)/$(count $B compaction)/$(count $C compaction)"

log "kill -9 of peer B"
kill -9 "$pid_b"
wait_for 60 "C to find it with B gone" found
log "still found with B down: $(curl -fsS "http://127.0.0.1:$C/api/search?q=compaction&resource=global" | json 'len(d["results"])') results"
log "indexing the manual on A while B is down"
curl -fsS -X POST "http://127.0.0.1:$A/api/index/manual" >/dev/null

log "restarting B"
pids+=("$(start_peer b $B $((base + 101)) "127.0.0.1:$((base + 100))")")
wait_for 90 "B back in the ring" peers_are 3
wait_for 240 "repair: B receives what was indexed while it was down" all_copies peerdex
log "postings of 'peerdex' on A/B/C: $(count $A peerdex)/$(count $B peerdex)/$(count $C peerdex); of 'compaction': $(count $A compaction)/$(count $B compaction)/$(count $C compaction)"
log "ok: crawl on one, search on another, kill one, still found, restart, every posting at R = 3 copies"
