# The two commands of the README:
#   make run    build, then run the main job on its embedded default
#   make test   build, then run every CPU test
# Both install missing Debian packages first when run as root.
BUILD ?= build
CMAKE_FLAGS ?=
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

# Debian packages the build needs, by the command or file that shows each one.
DEPS_CMD := cmake:cmake gcc:gcc g++:g++ pkg-config:pkg-config curl:curl xmllint:libxml2-utils
DEPS_PC := jansson:libjansson-dev libcrypto:libssl-dev sqlite3:libsqlite3-dev libmicrohttpd:libmicrohttpd-dev \
	libcurl:libcurl4-openssl-dev

.PHONY: all deps build run test clean

all: build

deps:
	@missing=""; \
	for d in $(DEPS_CMD); do command -v $${d%%:*} >/dev/null 2>&1 || missing="$$missing $${d#*:}"; done; \
	for d in $(DEPS_PC); do pkg-config --exists $${d%%:*} 2>/dev/null || missing="$$missing $${d#*:}"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing:$$missing"; \
	    DEBIAN_FRONTEND=noninteractive apt-get update -q && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing; \
	  else \
	    echo "missing Debian packages:$$missing (install them, or run make as root)" >&2; exit 1; \
	  fi; \
	fi

build: deps
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS)

# The embedded default: prove and verify the shipped example circuit
# (examples/README.md), printing the time of each prover stage; then the
# daemon on its embedded default in a temporary directory, a few jobs of
# the built-in circuits through its API (curl), their timings and verified
# proofs, and SIGTERM (examples/run_daemon.sh).
EXAMPLE := examples/poseidon_chain
run: build
	$(BUILD)/cuzk prove --zkey $(EXAMPLE).zkey --wtns $(EXAMPLE).wtns --r1cs $(EXAMPLE).r1cs \
	    --proof $(BUILD)/example-proof.json --public $(BUILD)/example-public.json
	$(BUILD)/cuzk verify --vk examples/vk.json \
	    --proof $(BUILD)/example-proof.json --public $(BUILD)/example-public.json
	@echo "proof: $(BUILD)/example-proof.json, public inputs: $(BUILD)/example-public.json"
	sh examples/run_daemon.sh $(BUILD)/cuzk

test: build
	ctest --test-dir $(BUILD) -L cpu --output-on-failure -j $(JOBS)

clean:
	rm -rf $(BUILD)
