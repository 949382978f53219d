// devagent's test fixture: tsconfig-paths runs its src/__tests__ with ts-jest (upstream: jest + ts-jest).
module.exports = {
  preset: "ts-jest",
  testEnvironment: "node",
  testMatch: ["<rootDir>/src/**/__tests__/**/*.test.ts"],
  transform: { "^.+\\.ts$": ["ts-jest", { diagnostics: false, isolatedModules: true }] },
};
