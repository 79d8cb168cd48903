/** The version `reviewbot --version` prints and SARIF logs name (keep in step with package.json). */
export const REVIEWBOT_VERSION = '0.1.0';
