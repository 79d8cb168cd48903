/**
 * How `AZURE_DEVOPS_TOKEN` is sent. A personal access token goes as HTTP Basic with an empty user
 * (Microsoft Learn, "Use personal access tokens": `Basic base64(":" + PAT)`). A JSON Web Token — the
 * job access token of a pipeline, `System.AccessToken`, or a Microsoft Entra access token — goes as
 * `Bearer <token>`: Microsoft Learn, "Use a PowerShell script to customize your pipeline" (access the
 * REST API with `Authorization = "Bearer $env:SYSTEM_ACCESSTOKEN"`), and the Azure Pipelines agent's
 * own checkout of Azure Repos (`GitSourceProvider.cs`, `TfsGitSourceProvider.GenerateAuthHeader`:
 * "bearer" with the job's JWT). PATs (52 base32 characters, or 84 ending in `AZDO` + 4, the shapes
 * `azure-devops-node-api`'s `getHandlerFromToken` tells apart) never contain a dot.
 */

/** Three base64url segments joined by dots, the first a JSON object (`eyJ` is `{"`). */
const JWT = /^eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** True when `token` is a JSON Web Token (sent as Bearer), false for a personal access token. */
export function isBearerToken(token: string): boolean {
  return JWT.test(token);
}

/** The `Authorization` header value for `token`: `Bearer <JWT>` or `Basic base64(":" + PAT)`. */
export function azureAuthorization(token: string): string {
  return isBearerToken(token) ? `Bearer ${token}` : `Basic ${Buffer.from(`:${token}`).toString('base64')}`;
}
