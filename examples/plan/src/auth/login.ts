export function handleLogin(user: string, password: string) {
  return user.length > 0 && password.length > 7;
}
