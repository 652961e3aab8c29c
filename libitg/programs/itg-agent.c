/* itg-agent: the remote control agent (itg/remote.h), a receiver and a
 * sender that runs the flows an authenticated client gives it. */
#include "programs/agent_cli.h"

int main(int argc, char **argv) {
  return itg__agent_cli_main("itg-agent", argc, argv);
}
