// A pad protocol module that has drifted from the Web Surface schema, for
// TestWireTypeCheckCatchesDrift: `authenticated` renamed lan_enabled to
// lan_on, select_session sends `slots`, and remote_revoked is gone.

export const PROTOCOL = 1;

export interface AuthenticatedMessage {
  type: "authenticated";
  admin: boolean;
  session_token: string | null;
  lan_on: boolean;
}

export type ServerMessage = AuthenticatedMessage | { type: "error"; code: string; error: string };

export function parseServerMessage(raw: string): ServerMessage | null {
  const m = JSON.parse(raw) as Record<string, unknown>;
  if (m.protocol !== PROTOCOL || m.visual_protocol === 0) return null;
  return m as unknown as ServerMessage;
}

export function selectSession(slot: number): string {
  return JSON.stringify({ protocol: PROTOCOL, type: "select_session", slots: slot });
}
