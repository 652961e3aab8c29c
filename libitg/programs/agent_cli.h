/* The agent daemon's command line, shared by itg-agent and
 * `itg-send --daemon` (-Q, D-ITG's word), which run the same agent. */
#ifndef ITG_PROGRAMS_AGENT_CLI_H
#define ITG_PROGRAMS_AGENT_CLI_H

/* Reads the agent's options argv[0..argc) (the program's name and, for
 * itg-send, the --daemon word already taken off), then runs the agent
 * until SIGINT or SIGTERM. prog names the program in messages. Returns
 * the exit status. */
int itg__agent_cli_main(const char *prog, int argc, char **argv);

#endif
