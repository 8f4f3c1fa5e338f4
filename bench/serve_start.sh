# Sourced by the device scripts: serve_start CUZK DIR LOG starts `CUZK
# serve` on DIR/cuzk.conf in the background (DPID: its pid) and waits up to
# 120 s for its socket; it fails, with the log's tail, if none appears.
serve_start() {
    "$1" serve --config "$2/cuzk.conf" --dir "$2" >"$3" 2>&1 &
    DPID=$!
    for _ in $(seq 1 240); do
        [ -S "$2/cuzk.sock" ] && return 0
        kill -0 "$DPID" 2>/dev/null || break
        sleep 0.5
    done
    echo "the daemon did not start: $(tail -3 "$3")" >&2
    return 1
}
