/**
 * Each profile's direct-invoke slash commands (plugins.md §6.7): a
 * profile's `slash_commands` entries `"<provider>.<command>"` and
 * `"<provider>.*"` name the commands of launched slash-command providers;
 * a name offered by two providers in one profile is a load error naming
 * both, and so is a listed command its provider does not offer.
 *
 * @module
 */
import type { Plan } from "../config/mod.ts";
import { directInvokeEntry } from "../config/profiles.ts";
import type { SlashProvider } from "./_providers.ts";
import type { SlashCommandRoute } from "./frontend/hub.ts";
import { ProviderError } from "./api.ts";

/**
 * The slash-command routes of every profile.
 *
 * @param plan The compiled plan.
 * @param providers The launched slash-command providers, by local name.
 * @returns The routes by profile, then by command name.
 * @throws {ProviderError} On a duplicate command name or a listed command
 * its provider does not offer.
 */
export function slashRoutesOf(
  plan: Plan,
  providers: ReadonlyMap<string, SlashProvider>,
): Map<string, Map<string, SlashCommandRoute>> {
  const out = new Map<string, Map<string, SlashCommandRoute>>();
  for (const profile of plan.profiles) {
    const routes = new Map<string, SlashCommandRoute>();
    for (const entry of profile.slashCommands) {
      const d = directInvokeEntry(entry);
      const p = d && providers.get(d.provider);
      if (!d || !p) continue; // a prompt-expansion name, or not loaded
      const commands = d.command === "*"
        ? p.commands
        : p.commands.filter((c) => c.name === d.command);
      if (commands.length === 0 && d.command !== "*") {
        throw new ProviderError(
          d.provider,
          `agent_profile "${profile.name}" lists slash command "${entry}", but the provider offers ${
            p.commands.map((c) => `"${c.name}"`).join(", ") || "no commands"
          }`,
        );
      }
      for (const schema of commands) {
        const other = routes.get(schema.name);
        if (other && other.provider !== d.provider) {
          throw new ProviderError(
            d.provider,
            `slash command "/${schema.name}" of agent_profile "${profile.name}" is offered by both provider "${other.provider}" and provider "${d.provider}": a direct-invoke command name must be unique in a session`,
          );
        }
        routes.set(schema.name, {
          provider: d.provider,
          schema,
          endpoint: p.endpoint,
          ...(schema.inputSchema ? { inputSchema: schema.inputSchema } : {}),
        });
      }
    }
    out.set(profile.name, routes);
  }
  return out;
}
