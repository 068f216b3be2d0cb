export function App({ user }: { user: string }) {
  return (
    <main>
      <Header />
      <Banner text="Welcome back" />
      <Profile name={user} />
      <Footer />
    </main>
  );
}
