# Sourced by the device scripts: serve_start CUZK DIR LOG [SECONDS] starts
# `CUZK serve` on DIR/cuzk.conf in the background (DPID: its pid) and waits
# up to SECONDS (default 120) for its socket; it fails, with the log's
# tail, if the daemon exits or no socket appears.
serve_start() {
    "$1" serve --config "$2/cuzk.conf" --dir "$2" >"$3" 2>&1 &
    DPID=$!
    for _ in $(seq 1 $((2 * ${4:-120}))); do
        [ -S "$2/cuzk.sock" ] && return 0
        kill -0 "$DPID" 2>/dev/null || break
        sleep 0.5
    done
    echo "the daemon did not start: $(tail -5 "$3")" >&2
    return 1
}
