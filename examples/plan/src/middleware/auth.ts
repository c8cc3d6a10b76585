export function validateToken(token: string): boolean {
  return token !== '';
}
