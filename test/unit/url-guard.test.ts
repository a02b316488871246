import { assertPublicHttpUrl, UnsafeUrlError } from '../../common/net/url-guard';

describe('outbound URL guard', () => {
  it.each(['http://8.8.8.8/hook', 'https://93.184.216.34/x', 'http://[2606:4700::1111]/', 'http://[::ffff:8.8.8.8]/'])(
    'lets %s through',
    async (url) => {
      await expect(assertPublicHttpUrl(url, false)).resolves.toBeInstanceOf(URL);
    },
  );

  it.each([
    'http://127.0.0.1:9380/v1',
    'http://10.1.2.3/',
    'http://192.168.0.7/',
    'http://172.20.0.1/',
    'http://169.254.169.254/latest/meta-data',
    'http://[::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[fe80::1]/',
    'http://[fd00::5]/',
    'http://0.0.0.0/',
  ])('refuses %s', async (url) => {
    await expect(assertPublicHttpUrl(url, false)).rejects.toBeInstanceOf(UnsafeUrlError);
  });

  it('refuses other schemes and embedded credentials, and allows private targets only when told to', async () => {
    await expect(assertPublicHttpUrl('ftp://8.8.8.8/', false)).rejects.toThrow('http or https');
    await expect(assertPublicHttpUrl('http://user:pw@8.8.8.8/', false)).rejects.toThrow('credentials');
    await expect(assertPublicHttpUrl('http://127.0.0.1:1/', true)).resolves.toBeInstanceOf(URL);
  });
});
