import { handleLogin } from '../../src/auth/login';
test('login', () => expect(handleLogin('ada', 'password1')).toBe(true));
