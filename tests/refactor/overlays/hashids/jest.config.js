// devagent's test fixture: hashids runs src/tests with ts-jest (upstream: jest through its beemo config). The tests
// that load the published build (cjs/, esm/) are left out: a git checkout has no build.
module.exports = {
  testEnvironment: "node",
  testMatch: ["<rootDir>/src/tests/**/*.test.ts"],
  testPathIgnorePatterns: ["/node_modules/", "requiring\\.test\\.ts$"],
  transform: { "^.+\\.ts$": ["ts-jest", { diagnostics: false, isolatedModules: true }] },
};
