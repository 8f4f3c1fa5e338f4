#!/bin/sh
# Prepares .devdeps/ for the GPU machine, which has no -dev packages (and no
# libmicrohttpd) and no network: run here, then name .devdeps in the device
# tool's `carry` and start each device command with `. .devdeps/setup.sh`.
# Downloads Debian's packages (apt-get download; needs this machine's
# network) and writes .devdeps/setup.sh, which unpacks them there and points
# pkg-config, the compiler, the linker and the loader at them.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
D=$ROOT/.devdeps
mkdir -p "$D/deb"
cd "$D/deb"
apt-get download libjansson-dev libjansson4 libsqlite3-dev libsqlite3-0 libmicrohttpd-dev \
    libmicrohttpd12 libssl-dev libssl3 libgnutls30 libp11-kit0 libidn2-0 libunistring2 \
    libtasn1-6 libnettle8 libhogweed6 libgmp10 libffi8 \
    libcurl4-openssl-dev libcurl4 libbrotli1 libcom-err2 libdb5.3 libgssapi-krb5-2 \
    libk5crypto3 libkeyutils1 libkrb5-3 libkrb5support0 libldap-2.5-0 libnghttp2-14 libpsl5 \
    librtmp1 libsasl2-2 libsasl2-modules-db libssh2-1 libzstd1 zlib1g
cat >"$D/setup.sh" <<'SETUP'
# Sourced on the GPU machine from the repository root (see bench/device_deps.sh).
R=$(pwd)/.devdeps/root
if [ ! -d "$R" ]; then
  for f in .devdeps/deb/*.deb; do dpkg -x "$f" "$R"; done
  for pc in "$R"/usr/lib/x86_64-linux-gnu/pkgconfig/*.pc "$R"/usr/share/pkgconfig/*.pc; do
    [ -f "$pc" ] && sed -i "s|^prefix=/usr|prefix=$R/usr|" "$pc"
  done
fi
# libmicrohttpd.pc names gnutls (Requires.private) only for static links:
# an empty description satisfies pkg-config for the shared library.
mkdir -p "$R/extra-pc"
printf 'Name: gnutls\nDescription: stub\nVersion: 3.7.9\nLibs:\nCflags:\n' >"$R/extra-pc/gnutls.pc"
export PKG_CONFIG_PATH=$R/extra-pc:$R/usr/lib/x86_64-linux-gnu/pkgconfig:$R/usr/share/pkgconfig
export CPATH=$R/usr/include:$R/usr/include/x86_64-linux-gnu
export LIBRARY_PATH=$R/usr/lib/x86_64-linux-gnu
export LD_LIBRARY_PATH=$R/usr/lib/x86_64-linux-gnu
SETUP
echo "ready: carry .devdeps; begin each device command with: . .devdeps/setup.sh"
