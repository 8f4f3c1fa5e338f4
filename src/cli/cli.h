/* cuzk — the command-line tool: what the command files share.
 *
 * Each command is a function cmd_<name>(argc, argv) in its own file (argv[0]
 * is the command name), listed in the table of cuzk.c. Exit status of every
 * command: 0 success, 1 a verification that says "invalid", 2 unusable input
 * or failure, with a one-line reason on stderr. */
#ifndef CUZK_CLI_H
#define CUZK_CLI_H

#include <cuzk/formats.h>

#define EXIT_INVALID 1
#define EXIT_UNUSABLE 2

/* Monotonic wall clock in milliseconds. */
double cli_now_ms(void);
/* Prints "cuzk: what: detail" to stderr; returns EXIT_UNUSABLE. */
int cli_fail(const char *what, const char *detail);
/* Reads a whole file into b; on failure prints the reason and returns 0. */
int cli_read_file(cuzk_blob *b, const char *path);
/* Parses a --threads value (0..1024) into *out; 0 with a message if bad. */
int cli_parse_threads(const char *arg, unsigned *out);

int cmd_prove(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_setup(int argc, char **argv);  /* keys.c */
int cmd_import(int argc, char **argv); /* keys.c */
int cmd_circuits(int argc, char **argv); /* circuits.c */
int cmd_compile(int argc, char **argv);  /* circuits.c */
int cmd_info(int argc, char **argv);     /* circuits.c */
int cmd_witness(int argc, char **argv);  /* circuits.c */

#endif /* CUZK_CLI_H */
