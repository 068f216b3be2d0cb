export function Hero() {
  return (
    <section className="hero">
      <h1>Welcome</h1>
    </section>
  );
}
