# An agent.hcl with nothing configured yet.
// Everything takes its default.
/* Nothing here. */
