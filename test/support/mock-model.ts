/** The project's mock model server, for tests (it lives in src so the built CLI can run it too). */
export * from '../../src/llm/mock/server.js'
