/**
 * Runs `load` (a dynamic import) with `CI` and `CONTINUOUS_INTEGRATION` removed from the environment, then puts them
 * back. Modules of the terminal UI decide once, when they load, whether they run in CI: ink then draws only a final
 * frame, and chalk (ink's colours) takes any `CI` at all for a terminal without colour.
 * An interactive terminal is never CI. Removed, not set to "0", for chalk's sake; restored at once, so commands the
 * agent runs still see them.
 */
export async function withoutCiEnv<T>(load: () => Promise<T>): Promise<T> {
  const saved = { CI: process.env.CI, CONTINUOUS_INTEGRATION: process.env.CONTINUOUS_INTEGRATION }
  delete process.env.CI
  delete process.env.CONTINUOUS_INTEGRATION
  try {
    return await load()
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value !== undefined) process.env[key] = value
    }
  }
}
