# Shell helpers of the waterfall tests (sourced): read cuzk-bench
# waterfall's --json without a JSON tool.

# The analysis JSON (jansson's indented form: one member a line) flattened
# to PATH=VALUE lines: devices.0.gaps.lt_50ms.count=4.
flatten() {
    awk '
    function path(   i, p) {
        p = ""
        for (i = 1; i <= d; i++) if (K[i] != "") p = p (p == "" ? "" : ".") K[i]
        return p
    }
    {
        l = $0
        sub(/^[ \t]+/, "", l)
        sub(/,$/, "", l)
        k = ""
        v = l
        if (l ~ /^"[^"]*": /) {
            k = substr(l, 2, index(l, "\": ") - 2)
            v = substr(l, index(l, "\": ") + 3)
        }
        if (v == "}" || v == "]") { d--; next }
        if (k == "" && d > 0 && A[d]) k = N[d]++
        if (v == "{" || v == "[") { d++; K[d] = k; A[d] = (v == "["); N[d] = 0; next }
        p = path()
        print (p == "" ? "" : p ".") k "=" v
    }' "$1"
}
jget() { # FILE PATH: the value
    sed -n "s/^$2=//p" "$1"
}
# Numbers equal within 1e-6 relative (the JSON prints 9 digits).
num_eq() {
    awk -v a="$1" -v b="$2" 'BEGIN {
        d = a - b; if (d < 0) d = -d
        m = b < 0 ? -b : b
        exit !(a != "" && b != "" && d <= 1e-6 * (m > 1 ? m : 1))
    }'
}
