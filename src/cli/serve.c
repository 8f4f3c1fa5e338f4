/* cuzk serve — the daemon's main: config, signals, server.h. */
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <cuzk/server.h>

#include "cli.h"

static int usage_serve(FILE *f, int status)
{
    fprintf(f,
            "usage: cuzk serve [--config FILE] [--dir DIR] [--check]\n"
            "  Runs the proving daemon: an HTTP/1.1 + JSON API on the unix socket\n"
            "  DIR/cuzk.sock (mode 0600) and, when configured, on TCP with a bearer token.\n"
            "  The job store (DIR/cuzk.db, SQLite) keeps every accepted job: after a crash\n"
            "  a restart with the same DIR proves what was not finished. Without --config\n"
            "  it runs on the embedded default: the built-in circuits at size 10 (INSECURE\n"
            "  keys from a setup at the first start, kept in DIR as NAME.size10.cuzk), the\n"
            "  GPU when there is one, else the CPU.\n"
            "  DIR defaults to the working directory. SIGTERM or SIGINT: stop accepting\n"
            "  (503), finish the proofs in flight, keep queued jobs for the next start,\n"
            "  exit 0. --check: only read the config, say whether it is valid, exit.\n"
            "Endpoints:\n"
            "  POST   /v1/jobs[?wait=S]   {\"circuit\", \"priority\": low|normal|high|critical,\n"
            "                              \"request_id\", one of \"inputs\", \"seed\", \"wtns_path\"}\n"
            "                             or a .wtns body with ?circuit=&priority=&request_id=\n"
            "                             -> 202 {\"id\", \"queue_position\", \"existing\"}\n"
            "                             (a request_id holds until its finished job is\n"
            "                             purged: keep_results; in memory: results_keep)\n"
            "  POST   /v1/prove[?wait=S]  the same, waiting for the proof (default max_wait)\n"
            "  GET    /v1/jobs/ID[?wait=S] -> {\"state\", \"proof\", \"public\", \"timings\", \"error\"}\n"
            "  GET    /v1/jobs/ID/proof, /v1/jobs/ID/public [?partition=P]  snarkjs files as is\n"
            "  DELETE /v1/jobs/ID         cancel\n"
            "  POST   /v1/circuits[?wait=S] {\"zkey_path\" | \"key_path\", \"name\", \"preload\"}\n"
            "                             -> 201 once loaded (the key loads on the loader\n"
            "                             thread: no HTTP thread waits; 503 past 8 pending);\n"
            "                             ?wait=0: 202 {\"id\", \"state\": \"loading\"} at once,\n"
            "                             after the checks (a bad request is 400 at once);\n"
            "                             jobs for a loading circuit are accepted and wait\n"
            "  GET    /v1/circuits[/NAME[?wait=S]] circuits with their verifying keys (\"vk\")\n"
            "                             and \"state\": loading|ready|failed (+ \"error\");\n"
            "                             ?wait=S: until it is no longer loading\n"
            "  GET    /v1/circuits/NAME/vk   the snarkjs verification_key.json as is\n"
            "  POST   /v1/circuits/NAME/preload, /v1/circuits/NAME/evict\n"
            "  GET    /v1/status, /metrics (Prometheus), /v1/timeline?since=CURSOR[&max=N]\n"
            "Config file keys (`key = value`, '#' comments; see examples/cuzk.conf):\n");
    cuzk_server_config_help(f);
    return status;
}

static int wait_signal(void)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    int sig = 0;
    sigwait(&set, &sig);
    return sig;
}

int cmd_serve(int argc, char **argv)
{
    const char *config = NULL, *dir = NULL;
    int check = 0;
    static const struct option opts[] = {{"config", required_argument, 0, 'c'},
                                         {"dir", required_argument, 0, 'd'},
                                         {"check", no_argument, 0, 'k'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'c': config = optarg; break;
        case 'd': dir = optarg; break;
        case 'k': check = 1; break;
        case 'h': return usage_serve(stdout, 0);
        default: return usage_serve(stderr, EXIT_UNUSABLE);
        }
    }
    if (optind < argc) return cli_fail("serve", "unexpected argument (see --help)");
    char err[CUZK_ERRMSG_LEN];
    cuzk_server_config cfg;
    cuzk_server_config_default(&cfg, dir);
    if (config && cuzk_server_config_load(&cfg, config, err) != CUZK_OK)
        return cli_fail("serve", err);
    if (check) {
        printf("%s: valid (%zu circuits)\n", config ? config : "the embedded default",
               cfg.n_circuits);
        return 0;
    }

    /* Every thread the server starts inherits this mask, so the signals
     * reach only sigwait below; a vanished client is an EPIPE, not a
     * signal. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);

    /* The GPU backend, for "auto" and "gpu" (a build without CUDA has
     * none: "gpu" is then refused by the engine as an unknown backend). */
    if (!cli_gpu_register() && !strcmp(cfg.backend, "gpu"))
        return cli_fail("serve", "backend = gpu: this cuzk is built without CUDA");

    cuzk_server *srv;
    if (cuzk_server_start(&srv, &cfg, err) != CUZK_OK) return cli_fail("serve", err);
    int sig = wait_signal();
    fprintf(stderr, "cuzk serve: %s: stopping\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
    cuzk_server_stop(srv);
    return 0;
}
