// devagent's test fixture: upstream's babel.config.js (mljs/random at its 1.0.1 release; the npm tarball lacks it).
// jest transforms the TypeScript tests with it, as upstream's `npm run test-only` does.
module.exports = {
  presets: ['@babel/preset-typescript'],
  plugins: ['@babel/plugin-transform-modules-commonjs'],
};
