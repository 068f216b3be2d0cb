export function App({ user }: { user: string }) {
  return (
    <main>
      <Header />
      <Profile name={user} />
      <Footer />
    </main>
  );
}
